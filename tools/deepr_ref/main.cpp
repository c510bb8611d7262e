// nmsim-deepr-ref: DEEP R training with the reference (tools/reference/deepr_ref.h) for whole
// epochs, the held-out accuracy after each evaluation interval as CSV (docs/deepr.md, "Long
// runs"). With the same settings and --seed as a scenario, the float32 curve is the chip's own
// (the firmware matches the reference bit for bit); the double curve is the same training without
// float32 rounding. Per evaluation: the iterations and epochs trained, the training accuracy over
// the interval (before each update), the held-out accuracy, and the connections deleted per
// rewiring step over the interval (all matrices and PEs). Exit status: 0, 2 for bad options or
// data.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "tools/dataset/idx.h"
#include "tools/reference/deepr_ref.h"

namespace ref = nmsim::reference;

namespace {

struct Options {
    uint64_t seed = 1;
    uint32_t cores = 1, period = 10, max_new = 64, exp_iterations = 16, halving = 2;
    double epochs = 1, lr = 0.05, l1 = 1e-5, noise = 3e-4;
    uint64_t train_count = 50000, test_count = 10000, eval_every = 0;
    std::string dir = "/usr/share/datasets/fashion-mnist", precision = "float";
    std::string train_images, train_labels, test_images, test_labels;
};

template <class T>
void train(const Options& o, const ref::DeeprSpec& spec, const nmsim::dataset::LabelledImages& tr,
           const nmsim::dataset::LabelledImages& te, const char* name) {
    ref::DeeprTrainer<T> t(spec);
    const uint64_t total = static_cast<uint64_t>(o.epochs * double(o.train_count) + 0.5);
    const uint64_t every = o.eval_every ? o.eval_every : o.train_count;
    uint64_t right = 0, seen = 0, deleted = 0, steps = 0;
    auto evaluate = [&](uint64_t k) {
        uint64_t ok = 0;
        for (uint32_t i = 0; i < te.count; ++i)
            ok += t.classify(te.images.data() + size_t(i) * te.item) == te.labels[i];
        std::printf("%s,%llu,%.4f,%.4f,%.4f,%.2f\n", name, static_cast<unsigned long long>(k),
                    double(k) / double(o.train_count), seen ? double(right) / double(seen) : 0.0,
                    double(ok) / double(te.count), steps ? double(deleted) / double(steps) : 0.0);
        std::fflush(stdout);
        right = seen = deleted = steps = 0;
    };
    evaluate(0);
    for (uint64_t k = 0; k < total; ++k) {
        const uint32_t i = static_cast<uint32_t>(k % tr.count);
        const auto it = t.train(tr.images.data() + size_t(i) * tr.item, tr.labels[i], k);
        right += it.pred == it.label;
        ++seen;
        if (it.rewired) {
            ++steps;
            for (const auto& cell : it.deleted)
                for (uint32_t d : cell) deleted += d;
        }
        if ((k + 1) % every == 0 || k + 1 == total) evaluate(k + 1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"DEEP R reference training over whole epochs (seed 003), accuracy as CSV"};
    Options o;
    app.add_option("--seed", o.seed, "scenario seed (the random streams of a chip run)");
    app.add_option("--cores", o.cores, "1, or 4 (checkerboard)")->check(CLI::IsMember({1, 4}));
    app.add_option("--epochs", o.epochs, "epochs to train")->check(CLI::Range(0.0, 100.0));
    app.add_option("--rewiring-period", o.period, "iterations between rewiring steps")
        ->check(CLI::Range(1u, 1000000u));
    app.add_option("--max-new", o.max_new, "new connections per block and step")
        ->check(CLI::Range(1u, 4096u));
    app.add_option("--learning-rate", o.lr, "eta at epoch 0");
    app.add_option("--l1", o.l1, "L1 regularisation");
    app.add_option("--noise", o.noise, "sigma of the gradient noise");
    app.add_option("--train-count", o.train_count, "training images (the first of the file)")
        ->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}));
    app.add_option("--test-count", o.test_count, "held-out images evaluated")
        ->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}));
    app.add_option("--eval-every", o.eval_every, "iterations between evaluations (0: each epoch)");
    app.add_option("--precision", o.precision, "float (the chip's arithmetic), double, or both")
        ->check(CLI::IsMember({"float", "double", "both"}));
    app.add_option("--dataset-dir", o.dir, "folder of the four IDX files (Fashion-MNIST names)");
    app.add_option("--train-images", o.train_images, "IDX file (MNIST format), plain or .gz");
    app.add_option("--train-labels", o.train_labels, "IDX file");
    app.add_option("--test-images", o.test_images, "IDX file");
    app.add_option("--test-labels", o.test_labels, "IDX file");
    CLI11_PARSE(app, argc, argv);
    auto or_default = [&](const std::string& v, const char* name) {
        return v.empty() ? o.dir + "/" + name : v;
    };
    try {
        const auto tr = nmsim::dataset::read_labelled(
            or_default(o.train_images, "train-images-idx3-ubyte.gz"),
            or_default(o.train_labels, "train-labels-idx1-ubyte.gz"), o.train_count);
        const auto te = nmsim::dataset::read_labelled(
            or_default(o.test_images, "t10k-images-idx3-ubyte.gz"),
            or_default(o.test_labels, "t10k-labels-idx1-ubyte.gz"), o.test_count);
        if (tr.item != 784 || te.item != 784) {
            std::fprintf(stderr, "nmsim-deepr-ref: the images must have 784 pixels\n");
            return 2;
        }
        ref::DeeprSpec spec =
            ref::deepr_spec({784, 300, 100, 10}, {2352, 900, 300}, o.cores == 4, o.seed);
        spec.epoch_size = static_cast<uint32_t>(o.train_count);
        spec.lr_halving_epochs = o.halving;
        spec.learning_rate = static_cast<float>(o.lr);
        spec.l1 = static_cast<float>(o.l1);
        spec.noise = static_cast<float>(o.noise);
        spec.rewiring_period = o.period;
        spec.max_new = o.max_new;
        spec.exp_iterations = o.exp_iterations;
        std::printf("precision,iteration,epoch,train_accuracy,test_accuracy,deleted_per_step\n");
        if (o.precision != "double") train<float>(o, spec, tr, te, "float");
        if (o.precision != "float") train<double>(o, spec, tr, te, "double");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nmsim-deepr-ref: %s\n", e.what());
        return 2;
    }
    return 0;
}
