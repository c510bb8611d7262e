// A 32-bit little-endian ARM ELF executable: loadable segments and the symbol table (for fault
// messages such as "pc 0x000012a4 <mla_run+0x14>"). Our own small reader; libelf is not needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmsim::arm {

struct ElfSegment {
    uint32_t addr;               // physical load address
    std::vector<uint8_t> bytes;  // file contents; memsz - filesz zero bytes follow
    uint32_t memsz;
};

struct ElfSymbol {
    std::string name;
    uint32_t addr;
    uint32_t size;
    bool is_func;
};

class ElfImage {
public:
    // Throws std::runtime_error naming the file and the problem.
    static ElfImage load(const std::string& path);

    const std::string& path() const { return m_path; }
    uint32_t entry() const { return m_entry; }
    const std::vector<ElfSegment>& segments() const { return m_segments; }
    // Address of a symbol, if present.
    bool find_symbol(const std::string& name, uint32_t& addr) const;
    // "name+0xoff" for the function or object containing addr, or "" if none.
    std::string symbolize(uint32_t addr) const;
    // End of the highest loaded byte (memsz included).
    uint32_t end_of_image() const;

private:
    std::string m_path;
    uint32_t m_entry = 0;
    std::vector<ElfSegment> m_segments;
    std::vector<ElfSymbol> m_symbols;  // sorted by address
};

}  // namespace nmsim::arm
