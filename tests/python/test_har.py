"""Seed 002's HAR example (tools/examples/har, docs/bss2_har.md): the synthetic substitute data
(shapes, classes, subject split, determinism), the UCI HAR loader on a tiny fake dataset folder,
the Table 1 model's shapes (17 -> 16 positions, 256 features), a short mock-mode training that
beats chance clearly and a small evaluation on the simulated chip close to the mock accuracy.
The module nmsim._hagen is found through NMSIM_BUILD_DIR (set by ctest).
"""

import pathlib
import sys

import numpy as np
import pytest
import torch

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))
sys.path.insert(0, str(SOURCE_DIR / "tools" / "examples" / "har"))

import nmsim.torch as hx  # noqa: E402

import har_data  # noqa: E402
import har_model  # noqa: E402
import har_train  # noqa: E402


pytestmark = pytest.mark.usefixtures("hagen", "torch_defaults")


@pytest.fixture(scope="module")
def small_data():
    """24 windows per subject and activity: 21 x 144 training and 9 x 144 test windows."""
    return har_data.synthetic_har(seed=3, windows_per_activity=24)


# ------------------------------------------------------------------------------------------
# The synthetic substitute

def test_synthetic_shapes_classes_and_subject_split(small_data):
    (xt, yt, st), (xe, ye, se) = small_data
    assert xt.shape == (21 * 6 * 24, 9, 128) and xe.shape == (9 * 6 * 24, 9, 128)
    assert xt.dtype == np.float32 and yt.dtype == np.int64
    assert np.isfinite(xt).all() and np.isfinite(xe).all()
    assert list(np.bincount(yt)) == [21 * 24] * 6 and list(np.bincount(ye)) == [9 * 24] * 6
    # Subjects split between the sets as in UCI HAR: the test subjects are unseen.
    assert set(st.tolist()) == set(range(21)) and set(se.tolist()) == set(range(21, 30))
    assert len(har_data.CHANNELS) == 9 and len(har_data.CLASSES) == 6


def test_synthetic_physics(small_data):
    (xt, yt, _), _ = small_data
    total = xt[:, 6:9, :].mean(axis=2)                       # mean total acceleration (g)
    # Gravity: |g| = 1 in the mean of every static window (the moving ones add their
    # movement's mean over a window: impacts are one-sided).
    norm = np.linalg.norm(total, axis=1)
    assert np.allclose(norm[yt >= 3], 1.0, atol=0.03)
    assert np.allclose(norm[yt <= 2], 1.0, atol=0.2)
    # Laying: gravity off the vertical x axis; the other classes upright.
    assert np.abs(total[yt == 5, 0]).max() < 0.5
    assert total[yt != 5, 0].min() > 0.75
    # Walking-type classes move, static ones barely.
    body_std = xt[:, 0:3, :].std(axis=2).sum(axis=1)
    assert body_std[yt <= 2].min() > 2 * body_std[yt >= 3].max()
    # Downstairs has the strongest impacts (largest peak body acceleration).
    peak = np.abs(xt[:, 0:3, :]).max(axis=(1, 2))
    assert np.median(peak[yt == 2]) > np.median(peak[yt == 0]) > np.median(peak[yt == 1])
    # Sitting and standing differ in the trunk lean only, and overlap between subjects.
    z_sit, z_stand = total[yt == 3, 2], total[yt == 4, 2]
    assert z_sit.mean() < z_stand.mean() - 0.05
    assert z_sit.max() > z_stand.min()


def test_synthetic_is_deterministic():
    a = har_data.synthetic_har(seed=7, windows_per_activity=2)
    b = har_data.synthetic_har(seed=7, windows_per_activity=2)
    c = har_data.synthetic_har(seed=8, windows_per_activity=2)
    for (xa, ya, sa), (xb, yb, sb) in zip(a, b):
        assert np.array_equal(xa, xb) and np.array_equal(ya, yb) and np.array_equal(sa, sb)
    assert not np.array_equal(a[0][0], c[0][0])


def test_input_scaler_range_and_fixed_from_training(small_data):
    (xt, _, _), (xe, _, _) = small_data
    scaler = har_data.InputScaler(xt)
    q = scaler(xe)
    assert q.dtype == np.float32 and q.shape == xe.shape
    assert q.min() == 0 and q.max() == 31 and np.array_equal(q, np.round(q))
    # The offset and scale come from the training set: a far-out value clamps.
    far = np.full((1, 9, 128), 100.0, dtype=np.float32)
    assert (scaler(far) == 31).all() and (scaler(-far) == 0).all()
    # Each channel spans most of the range on the training set.
    qt = scaler(xt)
    assert (qt.max(axis=(0, 2)) == 31).all() and (qt.min(axis=(0, 2)) == 0).all()


# ------------------------------------------------------------------------------------------
# The UCI HAR loader

def _write_fake_uci(root, windows):
    """A tiny 'UCI HAR Dataset' folder: value = split * 1000 + window * 10 + channel + t/1000."""
    for k, (split, n) in enumerate(windows.items()):
        sig = root / split / "Inertial Signals"
        sig.mkdir(parents=True)
        for c, name in enumerate(har_data.CHANNELS):
            rows = [" ".join(f"{k * 1000 + i * 10 + c + t / 1000:.6e}" for t in range(128))
                    for i in range(n)]
            (sig / f"{name}_{split}.txt").write_text("\n".join("  " + r for r in rows) + "\n")
        (root / split / f"y_{split}.txt").write_text(
            "\n".join(str(1 + i % 6) for i in range(n)) + "\n")
        (root / split / f"subject_{split}.txt").write_text(
            "\n".join(str(1 + k + i // 4) for i in range(n)) + "\n")


def test_uci_loader_reads_the_folder_layout(tmp_path):
    _write_fake_uci(tmp_path, {"train": 7, "test": 3})
    (xt, yt, st), (xe, ye, se) = har_data.load_uci_har(tmp_path)
    assert xt.shape == (7, 9, 128) and xe.shape == (3, 9, 128)
    assert xt.dtype == np.float32
    # Channel order = CHANNELS, time along the last axis, labels 1..6 -> 0..5.
    assert xt[2, 4, 5] == pytest.approx(2 * 10 + 4 + 0.005, rel=1e-6)
    assert xe[1, 8, 127] == pytest.approx(1000 + 10 + 8 + 0.127, rel=1e-6)
    assert yt.tolist() == [0, 1, 2, 3, 4, 5, 0] and ye.tolist() == [0, 1, 2]
    assert st.tolist() == [1, 1, 1, 1, 2, 2, 2] and se.tolist() == [2, 2, 2]
    # The training script's path: scaled into 0..31 with the training set's ranges.
    (x_train, y_train), (x_test, _), what = har_train.load_data(str(tmp_path))
    assert "UCI HAR" in what and "SYNTHETIC" not in what
    assert x_train.shape == (7, 9, 128) and x_train.min() >= 0 and x_train.max() <= 31
    assert y_train.dtype == torch.int64


def test_uci_loader_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="UCI HAR Dataset"):
        har_data.load_uci_har(tmp_path)
    _write_fake_uci(tmp_path, {"train": 2, "test": 2})
    (tmp_path / "test" / "y_test.txt").write_text("1\n7\n")
    with pytest.raises(ValueError, match="labels outside 1..6"):
        har_data.load_uci_har(tmp_path)


# ------------------------------------------------------------------------------------------
# The model

def test_model_shapes_and_parameters():
    torch.manual_seed(0)
    model = har_model.HARModel()
    assert model.parameter_counts() == {"Conv1d": 4608, "Linear-1": 32000, "Linear-2": 750}
    assert all(p.dim() >= 2 for p in model.parameters())          # no biases
    x = torch.randint(0, 32, (3, 9, 128)).float()
    hx.configure(mode="ideal")
    # Unpadded: 17 positions; the model keeps 16 (x 16 channels = 256 features).
    assert model.conv(x).shape == (3, 16, 17)
    assert model.features(x).shape == (3, 16, 16)
    assert har_model.CONV_SAMPLES == 122 and har_model.FEATURES == 256
    assert model(x).shape == (3, 6)
    # Cropping the input to 122 samples equals dropping the 17th output position.
    other = har_model.HARModel(crop="output")
    other.load_state_dict(model.state_dict())
    assert torch.equal(model.features(x), other.features(x))
    assert torch.equal(model(x), other(x))
    # The 122-sample input sends 16 vectors per window to the chip, not 17.
    hx.configure(mode="simulate", params=hx.IDEAL_PARAMS, seed=0)
    hx.reset_stats()
    with torch.no_grad():
        y_chip = model.features(x)
    assert hx.stats()["vectors"] == 3 * 16 * 3                    # 288 rows: 3 row tiles
    hx.configure(mode="ideal")
    assert torch.equal(y_chip, model.features(x))                 # ideal chip = reference


def test_converting_relu():
    y = torch.tensor([-128.0, -1.0, 0.0, 3.0, 4.0, 7.0, 8.0, 126.0, 127.0], requires_grad=True)
    a = har_model.converting_relu(y)
    assert a.tolist() == [0, 0, 0, 0, 1, 1, 2, 31, 31]
    a.sum().backward()
    # Straight through: d(relu(y) / 4) / dy.
    assert y.grad.tolist() == [0, 0, 0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25]


# ------------------------------------------------------------------------------------------
# Training and the simulated chip

@pytest.fixture(scope="module")
def trained(small_data):
    """Five mock-mode epochs on the small synthetic set (a few seconds)."""
    saved = hx.Config(**vars(hx.config))
    (xt, yt, _), (xe, ye, _) = small_data
    scaler = har_data.InputScaler(xt)
    x_train, y_train = torch.from_numpy(scaler(xt)), torch.from_numpy(yt)
    x_test, y_test = torch.from_numpy(scaler(xe)), torch.from_numpy(ye)
    torch.manual_seed(0)
    hx.configure(mode="mock", mock_gain=hx.IDEAL_GAIN, params=har_train.CHIP_PARAMS, seed=0)
    model = har_model.HARModel()
    opt = torch.optim.Adam(model.parameters(), lr=0.3)
    gen = torch.Generator().manual_seed(0)
    for _ in range(5):
        har_train.run_epoch(model, opt, x_train, y_train, 64, 0.125, gen)
    hx.configure(**vars(saved))
    return model, x_test, y_test


def test_mock_training_beats_chance(trained):
    model, x, y = trained
    hx.configure(mode="mock", mock_gain=hx.IDEAL_GAIN)
    r = har_train.evaluate(model, x, y, "mock", 1024)
    assert r["acc"] > 0.5, r["acc"]                                # chance: 1/6
    torch.manual_seed(0)
    untrained = har_train.evaluate(har_model.HARModel(), x, y, "mock", 1024)["acc"]
    assert r["acc"] > untrained + 0.2, (r["acc"], untrained)
    m = r["confusion"]
    assert m.shape == (6, 6) and m.sum() == len(y)
    assert m[5, 5] >= 0.9 * m[5].sum()                             # laying is easy
    text = har_train.format_confusion(m)
    assert "laying" in text and "recall" in text


def test_simulate_close_to_mock(trained):
    model, x, y = trained
    torch.manual_seed(1)
    idx = har_train.subset(len(x), 120, 0)
    hx.configure(mock_gain=hx.IDEAL_GAIN, params=har_train.CHIP_PARAMS, seed=0)
    mock = har_train.evaluate(model, x[idx], y[idx], "mock", 120)
    sim = har_train.evaluate(model, x[idx], y[idx], "simulate", 120)
    print(f"accuracy simulate {sim['acc']:.3f}, mock {mock['acc']:.3f}")
    assert sim["acc"] > 0.4 and abs(sim["acc"] - mock["acc"]) < 0.25, (sim["acc"], mock["acc"])
    s = sim["stats"]
    assert s["calls"] == 3 and s["wall"] > 0 and s["realtime"] > 0
    # Per window: 16 conv positions x 3 row tiles + 2 tiles (Linear-1) + 1 tile (Linear-2).
    assert s["vectors"] == 120 * (16 * 3 + 2 + 1)
    assert s["macs"] == 120 * (16 * 288 * 16 + 256 * 125 + 125 * 6)
    assert "simulated per window" in har_train.format_times(sim)


def test_subset_is_fixed():
    a = har_train.subset(100, 10, 5)
    assert torch.equal(a, har_train.subset(100, 10, 5)) and len(set(a.tolist())) == 10
    assert len(har_train.subset(100, 0, 5)) == 100
