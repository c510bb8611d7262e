"""Data for the human activity recognition (HAR) example of seed 002 sec. 4.2 (docs/bss2_har.md):
a loader for the real UCI HAR dataset and a synthetic substitute with the same shapes and classes.

Both give ``(x, y, subject)``: ``x`` float32 (N, 9, 128) in physical units, ``y`` int64 class
indices 0..5, ``subject`` int64 subject ids. The channel order is ``CHANNELS``: body acceleration
x, y, z (g, gravity removed), body angular velocity x, y, z (rad/s), total acceleration x, y, z
(g, with gravity). A window is 2.56 s at 50 Hz = 128 samples. Classes (``CLASSES``) are UCI HAR's
labels 1..6 minus one: walking, walking upstairs, walking downstairs, sitting, standing, laying.

``load_uci_har(root)`` reads the "UCI HAR Dataset" folder (``root/train/Inertial Signals/
body_acc_x_train.txt`` ..., ``root/train/y_train.txt``, ``root/train/subject_train.txt``, the
same for ``test``). ``synthetic_har(seed)`` generates the substitute (``synthetic_har`` below
describes the model); it is not UCI HAR and its accuracies are not comparable to the seed's.

``InputScaler`` maps the signed sensor values into the chip's 5-bit activations 0..31 with a
per-channel offset and scale fixed from the training set.
"""

import pathlib

import numpy as np

CHANNELS = ("body_acc_x", "body_acc_y", "body_acc_z",
            "body_gyro_x", "body_gyro_y", "body_gyro_z",
            "total_acc_x", "total_acc_y", "total_acc_z")
CLASSES = ("walking", "upstairs", "downstairs", "sitting", "standing", "laying")
RATE_HZ = 50.0
WINDOW = 128            # 2.56 s at 50 Hz
SUBJECTS = 30           # UCI HAR: 30 volunteers, 21 (70 %) in the training set, 9 in the test set
TRAIN_SUBJECTS = 21


# --------------------------------------------------------------------------------------------
# The real dataset

def load_uci_har_split(root, split):
    """One split ("train" or "test") of the UCI HAR Dataset folder ``root``: (x, y, subject).
    Labels 1..6 in the files become 0..5; a missing subject file gives subject -1."""
    root = pathlib.Path(root)
    base = root / split
    signals = base / "Inertial Signals"
    if not signals.is_dir():
        raise FileNotFoundError(f"{signals} not found: --data must name the 'UCI HAR Dataset' "
                                "folder (with train/ and test/, each with 'Inertial Signals/')")
    chans = []
    for name in CHANNELS:
        path = signals / f"{name}_{split}.txt"
        a = np.loadtxt(path, dtype=np.float32, ndmin=2)
        if a.shape[1] != WINDOW:
            raise ValueError(f"{path}: rows have {a.shape[1]} values, expected {WINDOW}")
        chans.append(a)
    n = chans[0].shape[0]
    for name, a in zip(CHANNELS, chans):
        if a.shape[0] != n:
            raise ValueError(f"{split}/{name}: {a.shape[0]} windows, {CHANNELS[0]} has {n}")
    x = np.stack(chans, axis=1)
    y = np.loadtxt(base / f"y_{split}.txt", dtype=np.int64, ndmin=1).reshape(-1)
    if y.shape[0] != n:
        raise ValueError(f"{split}/y_{split}.txt: {y.shape[0]} labels for {n} windows")
    if y.min() < 1 or y.max() > len(CLASSES):
        raise ValueError(f"{split}/y_{split}.txt: labels outside 1..{len(CLASSES)}")
    subj_path = base / f"subject_{split}.txt"
    if subj_path.exists():
        subject = np.loadtxt(subj_path, dtype=np.int64, ndmin=1).reshape(-1)
    else:
        subject = np.full(n, -1, dtype=np.int64)
    return x, y - 1, subject


def load_uci_har(root):
    """The UCI HAR Dataset folder ``root``: ((x_train, y_train, s_train), (x_test, y_test,
    s_test))."""
    return load_uci_har_split(root, "train"), load_uci_har_split(root, "test")


# --------------------------------------------------------------------------------------------
# The synthetic substitute

def _rotation(pitch, roll):
    """Rotation matrices (..., 3, 3) of the phone's frame: pitch about y (tips the vertical x
    axis towards z), then roll about z (towards y). Angles in radians, arrays of equal shape."""
    cp, sp, cr, sr = np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    one, zero = np.ones_like(pitch), np.zeros_like(pitch)
    ry = np.stack([np.stack([cp, zero, sp], -1), np.stack([zero, one, zero], -1),
                   np.stack([-sp, zero, cp], -1)], -2)
    rz = np.stack([np.stack([cr, -sr, zero], -1), np.stack([sr, cr, zero], -1),
                   np.stack([zero, zero, one], -1)], -2)
    return rz @ ry


def _subjects(rng, n):
    """Per-subject traits: the phone's mounting tilt, gait frequency and vigour, posture when
    sitting, standing and lying, and the sensor noise."""
    deg = np.pi / 180
    return {
        "tilt_pitch": rng.normal(0, 6, n) * deg,     # mounting of the phone on the belt
        "tilt_roll": rng.normal(0, 6, n) * deg,
        "gait_hz": rng.normal(1.85, 0.15, n),        # step frequency of level walking
        "vigour": np.exp(rng.normal(0, 0.15, n)),    # amplitude of the movements
        "stand_lean": rng.normal(0, 3, n) * deg,     # trunk lean when standing
        "sit_lean": rng.normal(10, 4, n) * deg,      # trunk reclined when sitting: close to
                                                     # standing on purpose (as in UCI HAR)
        "lay_roll": rng.normal(0, 20, n) * deg,      # lying on the back, turned to a side
        "acc_noise": rng.uniform(0.008, 0.025, n),   # g
        "gyro_noise": rng.uniform(0.01, 0.04, n),    # rad/s
    }


# Per class: step frequency relative to level walking, vertical, forward and lateral body
# acceleration (g), heel-strike impact (g), trunk pitch rate and yaw rate (rad/s), extra trunk
# lean (deg; positive = forward). The static classes have none of the movement terms.
_GAIT = {
    0: dict(f=1.00, v=0.26, fwd=0.12, lat=0.07, impact=0.15, pitch=0.30, yaw=0.25, lean=0.0),
    1: dict(f=0.85, v=0.20, fwd=0.16, lat=0.06, impact=0.08, pitch=0.45, yaw=0.20, lean=8.0),
    2: dict(f=1.08, v=0.34, fwd=0.10, lat=0.09, impact=0.45, pitch=0.40, yaw=0.30, lean=-5.0),
}


def synthetic_har(seed=0, windows_per_activity=56, subjects=SUBJECTS,
                  train_subjects=TRAIN_SUBJECTS):
    """The synthetic substitute for UCI HAR: ((x_train, y_train, s_train), (x_test, y_test,
    s_test)), deterministic for a seed (numpy's PCG64).

    ``subjects`` simulated people each record ``windows_per_activity`` windows of each of the
    six activities; the first ``train_subjects`` form the training set, the others the test set
    (UCI HAR splits its 30 volunteers 70/30 by person, so the test subjects are unseen). With
    the defaults: 21 x 6 x 56 = 7056 training and 9 x 6 x 56 = 3024 test windows (UCI HAR: 7352
    and 2947).

    The model of a window (phone on the waist, x axis vertical, z forward, in the phone's
    frame turned by the subject's mounting tilt and the activity's trunk lean):

    - gravity 1 g along the turned vertical; lying: along the turned forward axis, rolled by
      the subject's side;
    - walking, upstairs, downstairs: periodic body acceleration at the step frequency (vertical
      with its second harmonic, forward, lateral at half the step frequency), heel-strike
      impacts (short pulses at each step, strongest downstairs), trunk rotation rates (pitch at
      the step frequency, yaw and roll at the stride frequency); upstairs slower with more
      forward lean and pitching, downstairs faster with larger impacts; the subject's gait
      frequency and vigour scale them, each window jitters them by a few percent;
    - sitting, standing: no movement but a slow postural sway; they differ only in the trunk
      lean (standing 0 +- 3 deg, sitting 10 +- 4 deg between subjects) against a mounting tilt
      of +- 6 deg, so they overlap as in the real data;
    - white sensor noise per subject;
    - body acceleration = the movement terms (gravity removed, as UCI HAR's filter does),
      total acceleration = body + gravity.
    """
    rng = np.random.default_rng(seed)
    subj = _subjects(rng, subjects)
    deg = np.pi / 180
    t = np.arange(WINDOW) / RATE_HZ
    n_act = len(CLASSES)
    sid = np.repeat(np.arange(subjects), n_act * windows_per_activity)
    label = np.tile(np.repeat(np.arange(n_act), windows_per_activity), subjects)
    n = sid.shape[0]

    def per_window(key):
        return subj[key][sid]

    # Orientation of the phone per window: mounting tilt + posture + a little jitter.
    pitch = per_window("tilt_pitch") + rng.normal(0, 1.5, n) * deg
    roll = per_window("tilt_roll") + rng.normal(0, 1.5, n) * deg
    lean = np.zeros(n)
    for c, g in _GAIT.items():
        lean[label == c] = g["lean"] * deg
    lean[label == 4] = per_window("stand_lean")[label == 4]
    lean[label == 3] = per_window("sit_lean")[label == 3]
    pitch = pitch + lean
    laying = label == 5
    pitch[laying] += np.pi / 2
    roll[laying] += per_window("lay_roll")[laying]
    rot = _rotation(pitch, roll)                                    # n, 3, 3
    gravity = rot @ np.array([1.0, 0.0, 0.0])                       # n, 3

    body = np.zeros((n, 3, WINDOW))
    gyro = np.zeros((n, 3, WINDOW))
    vigour = per_window("vigour") * np.exp(rng.normal(0, 0.08, n))
    f_step = per_window("gait_hz") * np.exp(rng.normal(0, 0.04, n))
    phase = rng.uniform(0, 2 * np.pi, (n, 4))
    for c, g in _GAIT.items():
        m = label == c
        f = (f_step[m] * g["f"])[:, None]
        a = vigour[m][:, None]
        ph = phase[m]
        w = 2 * np.pi * f * t[None, :]
        step = w + ph[:, :1]
        vert = g["v"] * a * (np.sin(step) + 0.35 * np.sin(2 * step + ph[:, 1:2]))
        # Heel strikes: a short pulse (20 ms) once per step, at the phase of the vertical peak.
        pos = np.mod(step / (2 * np.pi), 1.0)
        dist = np.minimum(pos, 1 - pos) / f                         # seconds to the nearest
        vert = vert + g["impact"] * a * np.exp(-0.5 * (dist / 0.02) ** 2)
        fwd = g["fwd"] * a * np.sin(step + np.pi / 2)
        lat = g["lat"] * a * np.sin(0.5 * w + ph[:, 2:3])
        body[m] = np.stack([vert, lat, fwd], axis=1)
        gyro[m] = np.stack([
            0.5 * g["yaw"] * a * np.sin(0.5 * w + ph[:, 3:4]),      # yaw rate, about vertical x
            g["pitch"] * a * np.sin(step + 0.3),                    # pitch rate, about lateral y
            0.6 * g["yaw"] * a * np.sin(0.5 * w + ph[:, 2:3] + 1.0),  # roll rate, about z
        ], axis=1)
    # Postural sway of the static classes: slow, small, a bit larger standing than sitting.
    static = label >= 3
    sway_amp = np.where(label == 4, 0.012, np.where(label == 3, 0.008, 0.004))[static]
    sway_hz = rng.uniform(0.2, 0.6, int(static.sum()))[:, None]
    sway = sway_amp[:, None, None] * np.sin(
        2 * np.pi * sway_hz[:, None, :] * t[None, None, :]
        + rng.uniform(0, 2 * np.pi, (int(static.sum()), 3, 1)))
    body[static] = sway
    gyro[static] = 3 * sway
    # The movement happens in the body's frame; the phone sees it turned like gravity.
    body = np.einsum("nij,njt->nit", rot, body)
    gyro = np.einsum("nij,njt->nit", rot, gyro)
    body += per_window("acc_noise")[:, None, None] * rng.standard_normal(body.shape)
    gyro += per_window("gyro_noise")[:, None, None] * rng.standard_normal(gyro.shape)
    total = body + gravity[:, :, None]
    x = np.concatenate([body, gyro, total], axis=1).astype(np.float32)

    train = sid < train_subjects
    test = ~train
    return ((x[train], label[train].astype(np.int64), sid[train].astype(np.int64)),
            (x[test], label[test].astype(np.int64), sid[test].astype(np.int64)))


# --------------------------------------------------------------------------------------------
# Scaling into the chip's input range

class InputScaler:
    """Per-channel offset and scale into 0..31, fixed from the training set: a channel's
    ``low``..``high`` (its 0.5th and 99.5th percentiles over the training windows and time)
    maps to 0..31, values outside are clamped, results rounded to integers (seed 002 sec. 4.2:
    "inputs ... quantized and scaled to the dynamic range of the hardware")."""

    def __init__(self, x_train, percentile=0.5, levels=31):
        x = np.asarray(x_train, dtype=np.float64)
        per_channel = x.transpose(1, 0, 2).reshape(x.shape[1], -1)
        self.low = np.percentile(per_channel, percentile, axis=1)
        self.high = np.percentile(per_channel, 100 - percentile, axis=1)
        self.high = np.maximum(self.high, self.low + 1e-6)
        self.levels = levels

    def __call__(self, x):
        """Windows (N, 9, 128) -> float32 integers 0..31."""
        x = np.asarray(x, dtype=np.float64)
        u = (x - self.low[None, :, None]) / (self.high - self.low)[None, :, None]
        return np.clip(np.round(u * self.levels), 0, self.levels).astype(np.float32)
