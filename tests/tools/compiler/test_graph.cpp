// Graph: topological sort (stable, cycle and dangling-edge errors), shift checks, printing.
#include <gtest/gtest.h>

#include <sstream>

#include "tools/compiler/graph.h"

namespace nmsim::compiler {
namespace {

Layer make(const std::string& name, LayerKind kind, std::vector<std::string> inputs) {
    Layer l;
    l.name = name;
    l.kind = kind;
    l.inputs = std::move(inputs);
    return l;
}

std::vector<std::string> names(const Graph& g) {
    std::vector<std::string> n;
    for (const Layer& l : g.layers) n.push_back(l.name);
    return n;
}

TEST(Graph, SortsReversedDiamond) {
    Graph g;
    g.source = "net.onnx";
    g.layers = {make("out", LayerKind::output, {"sum"}), make("sum", LayerKind::add, {"b", "a"}),
                make("b", LayerKind::linear, {"in"}), make("a", LayerKind::linear, {"in"}),
                make("in", LayerKind::input, {})};
    g.sort_topologically();
    EXPECT_EQ(names(g), (std::vector<std::string>{"in", "b", "a", "sum", "out"}));
    // Every layer after its inputs (independent check of the order).
    for (size_t i = 0; i < g.layers.size(); ++i)
        for (const std::string& in : g.layers[i].inputs) {
            size_t j = 0;
            while (g.layers[j].name != in) ++j;
            EXPECT_LT(j, i);
        }
}

TEST(Graph, SortKeepsAnAlreadySortedOrder) {
    Graph g;
    g.layers = {make("in", LayerKind::input, {}), make("x", LayerKind::linear, {"in"}),
                make("y", LayerKind::linear, {"in"}), make("o", LayerKind::output, {"y"})};
    g.sort_topologically();
    EXPECT_EQ(names(g), (std::vector<std::string>{"in", "x", "y", "o"}));
}

TEST(Graph, CycleNamesItsLayers) {
    Graph g;
    g.source = "net.onnx";
    g.layers = {make("in", LayerKind::input, {}), make("p", LayerKind::add, {"in", "q"}),
                make("q", LayerKind::linear, {"p"}), make("o", LayerKind::output, {"q"})};
    try {
        g.sort_topologically();
        FAIL() << "no error";
    } catch (const CompileError& e) {
        EXPECT_STREQ(e.what(), "net.onnx: cycle in the layer graph through layers 'p', 'q', 'o'");
    }
}

TEST(Graph, UnknownInputAndDuplicateName) {
    Graph g;
    g.source = "net.onnx";
    g.layers = {make("in", LayerKind::input, {}), make("x", LayerKind::linear, {"nope"})};
    EXPECT_THROW(
        {
            try {
                g.sort_topologically();
            } catch (const CompileError& e) {
                EXPECT_STREQ(e.what(), "net.onnx: layer 'x': input 'nope' is not a layer");
                throw;
            }
        },
        CompileError);
    g.layers = {make("in", LayerKind::input, {}), make("in", LayerKind::linear, {})};
    EXPECT_THROW(g.sort_topologically(), CompileError);
}

TEST(Graph, CheckShiftsCollectsEveryBadLayer) {
    Graph g;
    g.source = "net.onnx";
    g.layers = {make("a", LayerKind::linear, {}), make("b", LayerKind::linear, {}),
                make("c", LayerKind::add, {})};
    for (Layer& l : g.layers) l.in_exponents = {5};
    g.layers[0].shift = -1;
    g.layers[1].shift = 31;
    g.layers[2].shift = 32;
    g.layers[2].out_exponent = -27;
    try {
        g.check_shifts();
        FAIL() << "no error";
    } catch (const CompileError& e) {
        EXPECT_STREQ(e.what(),
                     "net.onnx: layer 'a' (linear): requantisation shift -1 out of range 0..31 "
                     "(k_in 5 - k_out 0)\n"
                     "net.onnx: layer 'c' (add): requantisation shift 32 out of range 0..31 "
                     "(k_in 5 - k_out -27)");
    }
    g.layers[0].shift = 0;
    g.layers[2].shift = 0;
    EXPECT_NO_THROW(g.check_shifts());
}

TEST(Graph, PrintsLayers) {
    Graph g;
    g.source = "n.onnx";
    Layer l = make("fc", LayerKind::linear, {"in"});
    l.relu = true;
    l.in_shapes = {{1, 4}};
    l.in_exponents = {7};
    l.out_shape = {1, 3};
    l.out_exponent = 4;
    l.weights = Tensor{"w", {3, 4}, DType::i8, std::vector<int8_t>(12), {}, 6};
    l.shift = 9;
    g.layers = {l};
    std::ostringstream os;
    os << g;
    EXPECT_EQ(os.str(),
              "graph n.onnx (1 layers)\n"
              "  fc: linear+relu in(in [1, 4] k=7) out [1, 3] k=4 w [3, 4] k=6 shift 9\n");
    EXPECT_EQ(shape_elements({2, 3, 4}), 24);
    EXPECT_STREQ(to_string(LayerKind::avgpool), "avgpool");
}

}  // namespace
}  // namespace nmsim::compiler
