"""Fashion-MNIST from Debian's dataset-fashion-mnist package (IDX files, gzip-compressed)."""

import gzip
import pathlib

import numpy as np

DATA_DIR = pathlib.Path("/usr/share/datasets/fashion-mnist")


def _read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    magic = int.from_bytes(raw[0:4], "big")
    if magic >> 8 != 0x08:  # 0x08 = unsigned byte elements
        raise ValueError(f"{path}: not an unsigned-byte IDX file (magic 0x{magic:08x})")
    ndim = magic & 0xFF
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise ValueError(f"{path}: {data.size} bytes of data, header says {dims}")
    return data.reshape(dims)


def load(split, data_dir=DATA_DIR):
    """Return (images uint8 [N,28,28], labels uint8 [N]) of split 'train' or 't10k'."""
    data_dir = pathlib.Path(data_dir)
    images = _read_idx(data_dir / f"{split}-images-idx3-ubyte.gz")
    labels = _read_idx(data_dir / f"{split}-labels-idx1-ubyte.gz")
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{split}: {images.shape[0]} images but {labels.shape[0]} labels")
    return images, labels


def to_float(images):
    """Pixels p in 0..255 -> p/256 in [0, 1) (float32), the float model's input."""
    return images.astype(np.float32) / 256.0


def to_int8(images):
    """The int8 input with scale 2^-7, zero point 0, as ONNX QuantizeLinear computes it from
    to_float(images): saturate(round_half_even(p/2)) -> 0..127 (p = 255 saturates to 127)."""
    return np.clip(np.rint(images.astype(np.float64) / 2.0), -128, 127).astype(np.int8)
