#!/usr/bin/python3
"""Seed 001 sec. IV: train the 12 classifier kinds on the paradigm dataset, ship AdaBoost, plot Fig. 5.

One command (docs/snn_parallel.md, "Dataset and classifier"):

    /usr/bin/python3 tools/snn/paradigm_classifier.py --build build

runs build/bin/nmsim-snn-dataset if build/snn_paradigm/snn_dataset.csv is missing (16,000 layers
compiled with both paradigms), trains every kind with 20 seeds (80/20 split, stratified, the seed
also seeds the classifier), writes the accuracy table (accuracy.md), exports the AdaBoost of seed
0 to tools/compiler/snn/paradigm_classifier.txt (evaluated by the C++ compiler) with its sklearn
predictions on 400 test layers (tests/tools/compiler/snn/data/paradigm_predictions.csv, the C++
test's fixture), and plots Fig. 5 (fig5.png): average PEs per delay range for serial, parallel,
the classifier switch and the ideal switch. The same again with the seed's own serial rule
(Table I with n fixed at 255; accuracy_table1.md, fig5_table1.png), for comparison with the
seed's 91.69 % and Fig. 5. Needs Debian's python3-sklearn, numpy, matplotlib.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

FEATURES = ["n_sources", "n_targets", "density_pct", "delay_range"]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def classifiers(seed):
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
    from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    def scaled(c):
        return make_pipeline(StandardScaler(), c)

    def mlp(h):
        return scaled(MLPClassifier(hidden_layer_sizes=(h,), max_iter=400, early_stopping=True,
                                    random_state=seed))

    return {
        "Nearest Neighbors": scaled(KNeighborsClassifier(3)),
        "Linear SVM": scaled(LinearSVC(C=1.0, random_state=seed, max_iter=5000)),
        "RBF SVM": scaled(SVC(gamma=2, C=1, random_state=seed)),
        "Decision Tree": DecisionTreeClassifier(max_depth=5, random_state=seed),
        "Random Forest": RandomForestClassifier(max_depth=5, n_estimators=10, random_state=seed),
        "AdaBoost": AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=100,
                                       algorithm="SAMME", random_state=seed),
        "Naive Bayes": GaussianNB(),
        "QDA": QuadraticDiscriminantAnalysis(),
        "Logistic Regression": scaled(LogisticRegression(max_iter=1000)),
        "MLP 10": mlp(10),
        "MLP 50": mlp(50),
        "MLP 100": mlp(100),
    }


def export_adaboost(clf, path):
    """Text format read by ParadigmClassifier::parse (tools/compiler/snn/paradigm.h)."""
    lines = ["# nmsim paradigm classifier (tools/snn/paradigm_classifier.py); classes 0 serial,",
             "# 1 parallel; features n_sources n_targets density_pct delay_range",
             "# tree <weight> <nodes>; node <left> <right> <feature> <threshold> <class>",
             "nmsim-paradigm-classifier 1 adaboost-samme"]
    for est, w in zip(clf.estimators_, clf.estimator_weights_):
        t = est.tree_
        lines.append("tree %.17g %d" % (w, t.node_count))
        for i in range(t.node_count):
            cls = int(est.classes_[int(np.argmax(t.value[i][0]))])
            if t.children_left[i] < 0:
                lines.append("node -1 -1 -1 0 %d" % cls)
            else:
                lines.append("node %d %d %d %.17g %d" % (t.children_left[i], t.children_right[i],
                                                        t.feature[i], t.threshold[i], cls))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--dataset", help="CSV of nmsim-snn-dataset (default BUILD/snn_paradigm/)")
    ap.add_argument("--out", help="output folder (default BUILD/snn_paradigm)")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--no-export", action="store_true", help="keep the shipped classifier")
    ap.add_argument("--rule", choices=["both", "compiled", "table1"], default="both",
                    help="serial count of the labels: nmsim's compiler, the seed's Table I rule, "
                         "or both (default)")
    args = ap.parse_args()
    out = args.out or os.path.join(args.build, "snn_paradigm")
    os.makedirs(out, exist_ok=True)
    dataset = args.dataset or os.path.join(out, "snn_dataset.csv")
    if not os.path.exists(dataset):
        t0 = time.time()
        subprocess.run([os.path.join(args.build, "bin", "nmsim-snn-dataset"), "--out", dataset],
                       check=True)
        print("dataset: %.1f s" % (time.time() - t0))
    d = np.genfromtxt(dataset, delimiter=",", names=True)
    X = np.stack([d[f] for f in FEATURES], axis=1)
    for rule in (["compiled", "table1"] if args.rule == "both" else [args.rule]):
        run_rule(d, X, rule, args, out, export=rule == "compiled" and not args.no_export)


# The two serial counts of the dataset (docs/snn_parallel.md, "Two serial rules"): nmsim's
# serial compiler ("compiled", the label the shipped classifier learns) and seed 001's own rule
# from Table I with the neuron count fixed at 255 ("table1").
RULES = {"compiled": ("label", "serial_pes", ""),
         "table1": ("label_table1", "serial_pes_table1", "_table1")}


def run_rule(d, X, rule, args, out, export):
    label, serial_col, suffix = RULES[rule]
    y = d[label].astype(int)
    print("[%s] %d layers, %d labelled parallel" % (rule, len(y), y.sum()))

    from sklearn.model_selection import train_test_split
    acc = {}
    for seed in range(args.seeds):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
        for name, clf in classifiers(seed).items():
            clf.fit(Xtr, ytr)
            acc.setdefault(name, []).append(float((clf.predict(Xte) == yte).mean()))
            if name == "AdaBoost" and seed == 0:
                ada, ada_test = clf, (Xte, yte)
        print("[%s] seed %d done" % (rule, seed), flush=True)
    rows = ["| classifier | min | mean | max |", "|---|---|---|---|"]
    for name, a in acc.items():
        rows.append("| %s | %.2f %% | %.2f %% | %.2f %% |" % (name, 100 * min(a), 100 * np.mean(a),
                                                          100 * max(a)))
    table = "\n".join(rows)
    print(table)
    with open(os.path.join(out, "accuracy%s.md" % suffix), "w") as f:
        f.write("serial rule %s: %d layers, %d parallel; %d seeds, 80/20 split\n\n%s\n" % (
            rule, len(y), y.sum(), args.seeds, table))

    if export:
        export_adaboost(ada, os.path.join(REPO, "tools/compiler/snn/paradigm_classifier.txt"))
        Xte, yte = ada_test
        n = min(400, len(yte))
        with open(os.path.join(REPO, "tests/tools/compiler/snn/data/paradigm_predictions.csv"),
                  "w") as f:
            f.write("n_sources,n_targets,density_pct,delay_range,decision,prediction\n")
            for x, dec, p in zip(Xte[:n], ada.decision_function(Xte[:n]), ada.predict(Xte[:n])):
                f.write("%d,%d,%d,%d,%.17g,%d\n" % (x[0], x[1], x[2], x[3], dec, p))

    # Fig. 5: average PEs per delay range (1000 layers each).
    pred = ada.predict(X)
    ser, par = d[serial_col], d["parallel_pes"]
    switch = np.where(pred == 1, par, ser)
    ideal = np.minimum(ser, par)
    ds = np.arange(1, 17)
    mean = lambda v: [v[d["delay_range"] == k].mean() for k in ds]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(ds, mean(ser), "o-", label="serial")
    ax.plot(ds, mean(par), "s-", label="parallel")
    ax.plot(ds, mean(switch), "^-", label="switch (AdaBoost, %.2f %%)" % (100 * (pred == y).mean()))
    ax.plot(ds, mean(ideal), "--", label="ideal switch")
    ax.set_xlabel("delay range")
    ax.set_ylabel("average PEs per layer")
    ax.set_title("serial count: %s" % ("nmsim's serial compiler" if rule == "compiled" else
                                       "seed 001's Table I rule (n = 255)"))
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig5%s.png" % suffix), dpi=120)
    with open(os.path.join(out, "fig5%s.csv" % suffix), "w") as f:
        f.write("delay_range,serial,parallel,switch,ideal\n")
        for k, a, b, c, e in zip(ds, mean(ser), mean(par), mean(switch), mean(ideal)):
            f.write("%d,%.3f,%.3f,%.3f,%.3f\n" % (k, a, b, c, e))
    print("[%s] totals: serial %d, parallel %d, switch %d, ideal %d PEs" % (
        rule, ser.sum(), par.sum(), switch.sum(), ideal.sum()))


if __name__ == "__main__":
    sys.exit(main())
