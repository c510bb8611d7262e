"""Human-readable units: scale a value (or a column) to a prefixed unit.

    human_scale(2.2e8, "ps")        -> (1e-6, "us")      220.7 us
    human_scale(1.5e-3, "J")        -> (1e3, "mJ")
    human_scale(3 * 2**20, "B")     -> (2**-20, "MiB")
    human_scale([1.5e8, 4e8], "Hz") -> (1e-6, "MHz")     one scale for a whole column or axis
    human_scale(4991.0, "us")       -> (1e-3, "ms")      prefixed units are rescaled too

Units the module does not know ("1", "cycles", "bits", ...) keep scale 1.
"""

import math

import numpy as np

# Base unit -> prefixes (factor of the base, name) from small to large. Time includes ps because
# traces count in ps; bytes use binary prefixes as the simulator's parameters do (KiB, MiB).
_DECIMAL = [(1e-15, "f"), (1e-12, "p"), (1e-9, "n"), (1e-6, "u"), (1e-3, "m"), (1.0, ""),
            (1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T")]
_FAMILIES = {
    "s": [p for p in _DECIMAL if 1e-12 <= p[0] <= 1.0],
    "J": [p for p in _DECIMAL if 1e-15 <= p[0] <= 1.0],
    "W": [p for p in _DECIMAL if 1e-12 <= p[0] <= 1e3],
    "V": [p for p in _DECIMAL if 1e-6 <= p[0] <= 1.0],
    "A": [p for p in _DECIMAL if 1e-15 <= p[0] <= 1.0],
    "Hz": [p for p in _DECIMAL if 1.0 <= p[0] <= 1e12],
    "B/s": [p for p in _DECIMAL if 1.0 <= p[0] <= 1e12],
    "B": [(1.0, ""), (1024.0, "Ki"), (1024.0 ** 2, "Mi"), (1024.0 ** 3, "Gi"),
          (1024.0 ** 4, "Ti")],
}
_PREFIX = {name: factor for factor, name in _DECIMAL}
_PREFIX.update({"Ki": 1024.0, "Mi": 1024.0 ** 2, "Gi": 1024.0 ** 3, "Ti": 1024.0 ** 4})


def split_unit(unit):
    """A unit as (factor of its base unit, base unit) if the module knows it, else None:
    "us" -> (1e-6, "s"), "MiB" -> (1048576.0, "B"), "mW" -> (1e-3, "W"), "cycles" -> None."""
    unit = (unit or "").strip()
    if unit in _FAMILIES:
        return 1.0, unit
    for base in sorted(_FAMILIES, key=len, reverse=True):
        if unit.endswith(base):
            prefix = unit[: -len(base)]
            if prefix in _PREFIX and any(name == prefix for _, name in _FAMILIES[base]):
                return _PREFIX[prefix], base
    return None


def human_scale(values, unit):
    """(scale, new unit) such that values * scale reads well in new unit: the largest |value|
    lands in [1, 1000) (1024 for bytes) where a prefix allows. One scale for all values (pass a
    column or an axis' data). Unknown units and empty or all-zero input keep (1.0, unit)."""
    known = split_unit(unit)
    if known is None:
        return 1.0, unit
    factor, base = known
    v = np.abs(np.asarray(values, dtype=np.float64).ravel())
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return 1.0, unit
    biggest = float(v.max()) * factor  # in base units
    steps = _FAMILIES[base]
    choice = steps[0]
    for step in steps:
        if biggest >= step[0] * (1.0 - 1e-12):
            choice = step
    return factor / choice[0], choice[1] + base


def human(value, unit, decimals=3):
    """One value as text in a readable unit: human(220733333, "ps") -> "220.733 us";
    decimals=None gives 4 significant digits without trailing zeros (human(1.5e8, "Hz", None)
    -> "150 MHz")."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    scale, u = human_scale([value], unit)
    if decimals is None:
        return f"{value * scale:.4g} {u}".rstrip()
    return f"{value * scale:.{decimals}f} {u}".rstrip()


def display_scale(values, unit):
    """(scale, unit) for showing a column or an axis: base units (Hz, s, ps, J, W, B, B/s) get
    the prefix in which the median value reads best (human_scale); units that already carry a
    prefix ("us", "uJ", "mW": metric names such as dnn.total_us say them) stay as they are."""
    known = split_unit(unit)
    if known is None or (known[0] != 1.0 and unit != "ps"):
        return 1.0, unit
    v = np.abs(np.asarray(values, dtype=np.float64).ravel())
    v = v[np.isfinite(v) & (v > 0)]
    # The typical value, not the largest, decides: 5 kHz .. 1 MHz reads best in kHz.
    return human_scale([float(np.median(v))] if v.size else [], unit)
