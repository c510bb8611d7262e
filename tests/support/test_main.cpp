// main() for GoogleTest executables that use SystemC (libsystemc's own main would call sc_main).
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// libsystemc.so's own main() references sc_main; ours above is the one that runs.
extern "C" int sc_main(int, char**) { return 1; }
