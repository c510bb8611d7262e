#!/usr/bin/python3
"""Checks the QEMU side of the ISS differential tests against an independent host model.

Runs iss_int, iss_dsp and iss_fp on qemu-system-arm (mps2-an386) and recomputes a subset of the
printed checksums with plain Python re-implementations of the instructions (exact rational
arithmetic for the FPU, all rounding modes, flush-to-zero and default NaN), plus a few
individually printed results. This validates the test programs (operand generation, flag
handling, checksums) and QEMU as the oracle; nmsim is compared with QEMU by test_iss_vs_qemu.

usage: check_qemu_reference.py FIRMWARE_DIR        exit 0 = all agree, 1 = mismatch, 77 = skipped
"""
import math
import shutil
import subprocess
import sys
from fractions import Fraction as Fr

M32 = 0xFFFFFFFF


def run_qemu(elf):
    cmd = ["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
           "-serial", "null", "-chardev", "stdio,id=sh0", "-semihosting-config",
           "enable=on,target=native,chardev=sh0", "-kernel", elf]
    res = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=120)
    if res.returncode != 0:
        raise RuntimeError(f"{elf}: QEMU exit status {res.returncode}: {res.stderr}")
    return res.stdout.splitlines()


# ---- the programs' helpers (iss_common.c), written again ----

EDGE_INT = [0x00000000, 0x00000001, 0x00000002, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80000001,
            0xFFFFFFFE, 0x0000FFFF, 0x00010000, 0x00007FFF, 0x00008000, 0x000000FF, 0x00000080,
            0x0000007F, 0x12345678, 0xFFFF8000, 0x7FFF8000, 0x80007FFF, 0x00000003, 0x7F7F7F7F,
            0x80808080, 0xFF00FF00, 0x807F01FF]


class Rng:
    def __init__(self, seed):
        self.x = seed & M32

    def next(self):
        x = self.x
        x ^= (x << 13) & M32
        x ^= x >> 17
        x ^= (x << 5) & M32
        self.x = x
        return x


class Checksum:
    def __init__(self):
        self.h = 0x811C9DC5
        self.n = 0

    def add(self, v):
        h = ((self.h ^ v) * 0x9E3779B1) & M32
        self.h = h ^ (h >> 15)
        self.n += 1


def operand(rng):
    r = rng.next()
    sel = rng.next()
    if sel & 3 == 0:
        return r
    v = r >> ((sel >> 2) & 31)
    return (-v) & M32 if sel & 0x80 else v


def op_table_checksum(k, fn):
    """run_op_table() for op number k."""
    n = len(EDGE_INT)
    rng = Rng(0x2545F491 + k)
    s = Checksum()
    for i in range(1000):
        if i < n * n:
            a, b = EDGE_INT[i // n], EDGE_INT[i % n]
        else:
            a, b = operand(rng), operand(rng)
        c = rng.next()
        d = operand(rng)
        flags = (((i * 7) & 0xF) << 28) | ((1 << 27) if (i & 7) == 3 else 0) | (((i * 5) & 0xF) << 16)
        for v in fn(a, b, c, d, flags):
            s.add(v)
    return "%08x" % s.h


def table_sums(lines, prefix):
    """{op name: (index in the table, printed checksum)}"""
    out = {}
    for line in lines:
        p = line.split()
        if p and p[0].startswith(prefix) and len(p) > 2 and p[2].startswith("sum="):
            out[p[0][len(prefix):]] = (len(out), p[2][4:])
    return out


# ---- integer and DSP semantics ----

def s32(v):
    return v - (1 << 32) if v & 0x80000000 else v


def nz(r):
    return (0x80000000 if r & 0x80000000 else 0) | (0x40000000 if r == 0 else 0)


def add_with_carry(a, b, cin):
    u = a + b + cin
    r = u & M32
    c = 1 if u > M32 else 0
    v = 1 if s32(a) + s32(b) + cin != s32(r) else 0
    return r, nz(r) | (c << 29) | (v << 28)


def keep(f):
    return f & 0x0F0F0000  # Q and GE are not touched by the integer ops


def i_adds(a, b, c, d, f):
    r, fl = add_with_carry(a, b, 0)
    return r, 0, fl | keep(f)


def i_sbcs(a, b, c, d, f):
    r, fl = add_with_carry(a, (~b) & M32, (f >> 29) & 1)
    return r, 0, fl | keep(f)


def i_lsrs_r(a, b, c, d, f):
    s, cf = b & 0xFF, (f >> 29) & 1
    if s == 0:
        r = a
    elif s < 32:
        r, cf = a >> s, (a >> (s - 1)) & 1
    else:
        r, cf = 0, (a >> 31 if s == 32 else 0)
    return r, 0, nz(r) | (cf << 29) | (f & 0x1F0F0000)


def i_rors_r(a, b, c, d, f):
    s, cf, r = b & 0xFF, (f >> 29) & 1, a
    if s:
        k = s % 32
        r = ((a >> k) | (a << (32 - k))) & M32 if k else a
        cf = r >> 31
    return r, 0, nz(r) | (cf << 29) | (f & 0x1F0F0000)


def i_umull(a, b, c, d, f):
    p = a * b
    return p & M32, p >> 32, f


def i_smlal(a, b, c, d, f):
    acc = (((d << 32) | c) + s32(a) * s32(b)) & ((1 << 64) - 1)
    return acc & M32, acc >> 32, f


def i_sdiv(a, b, c, d, f):
    if b == 0:
        return 0, 0, f
    q = abs(s32(a)) // abs(s32(b))
    return (q if (s32(a) < 0) == (s32(b) < 0) else -q) & M32, 0, f


def i_clz(a, b, c, d, f):
    return 32 - a.bit_length(), 0, f


def i_bfi_8_12(a, b, c, d, f):
    m = 0xFFF << 8
    return (c & ~m & M32) | ((a << 8) & m), 0, f


INT_OPS = {"adds": i_adds, "sbcs": i_sbcs, "lsrs_r": i_lsrs_r, "rors_r": i_rors_r,
           "umull": i_umull, "smlal": i_smlal, "sdiv": i_sdiv, "clz": i_clz,
           "bfi_8_12": i_bfi_8_12}

Q = 1 << 27


def sat(v, lo, hi):
    return (lo, True) if v < lo else ((hi, True) if v > hi else (v, False))


def lane(v, i, bits):
    x = (v >> (bits * i)) & ((1 << bits) - 1)
    return x - (1 << bits) if x >> (bits - 1) else x


def d_qdsub(a, b, c, d, f):
    dd, s1 = sat(2 * s32(b), -2**31, 2**31 - 1)
    r, s2 = sat(s32(a) - dd, -2**31, 2**31 - 1)
    return r & M32, 0, f | (Q if s1 or s2 else 0)


def d_uadd8(a, b, c, d, f):
    r = ge = 0
    for i in range(4):
        x = ((a >> (8 * i)) & 0xFF) + ((b >> (8 * i)) & 0xFF)
        r |= (x & 0xFF) << (8 * i)
        ge |= (1 if x > 0xFF else 0) << i
    return r, 0, (f & 0xF8000000) | (ge << 16)


def d_ssub8_sel(a, b, c, d, f):
    ge = sum((1 if lane(a, i, 8) - lane(b, i, 8) >= 0 else 0) << i for i in range(4))
    r = sum((((c if (ge >> i) & 1 else b) >> (8 * i)) & 0xFF) << (8 * i) for i in range(4))
    return r, 0, (f & 0xF8000000) | (ge << 16)


def d_ssat_12_asr7(a, b, c, d, f):
    r, s = sat(s32(a) >> 7, -2**11, 2**11 - 1)
    return r & M32, 0, f | (Q if s else 0)


def d_usat16_4(a, b, c, d, f):
    r, q = 0, False
    for i in range(2):
        v, s = sat(lane(a, i, 16), 0, 15)
        q |= s
        r |= v << (16 * i)
    return r, 0, f | (Q if q else 0)


def d_smlad(a, b, c, d, f):
    t = lane(a, 0, 16) * lane(b, 0, 16) + lane(a, 1, 16) * lane(b, 1, 16) + s32(c)
    return t & M32, 0, f | (Q if s32(t & M32) != t else 0)


def d_smlaldx(a, b, c, d, f):
    acc = ((d << 32) | c) + lane(a, 0, 16) * lane(b, 1, 16) + lane(a, 1, 16) * lane(b, 0, 16)
    acc &= (1 << 64) - 1
    return acc & M32, acc >> 32, f


def d_smmlar(a, b, c, d, f):
    return (((s32(c) << 32) + s32(a) * s32(b) + 0x80000000) >> 32) & M32, 0, f


def d_usada8(a, b, c, d, f):
    return (sum(abs(((a >> (8 * i)) & 0xFF) - ((b >> (8 * i)) & 0xFF)) for i in range(4)) + c) & M32, 0, f


def d_pkhtb_asr12(a, b, c, d, f):
    return (a & 0xFFFF0000) | ((s32(b) >> 12) & 0xFFFF), 0, f


def d_shsub8(a, b, c, d, f):
    return sum((((lane(a, i, 8) - lane(b, i, 8)) >> 1) & 0xFF) << (8 * i) for i in range(4)), 0, f


DSP_OPS = {"qdsub": d_qdsub, "uadd8": d_uadd8, "ssub8_sel": d_ssub8_sel,
           "ssat_12_asr7": d_ssat_12_asr7, "usat16_4": d_usat16_4, "smlad": d_smlad,
           "smlaldx": d_smlaldx, "smmlar": d_smmlar, "usada8": d_usada8,
           "pkhtb_asr12": d_pkhtb_asr12, "shsub8": d_shsub8}


# ---- single precision (ARMv7-M FPv4-SP), exact ----

IOC, DZC, OFC, UFC, IXC, IDC = 0x1, 0x2, 0x4, 0x8, 0x10, 0x80
DEFAULT_NAN = 0x7FC00000
EDGE_FP = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3FC00000, 0x40200000, 0xC0200000,
           0x3F000000, 0x00800000, 0x007FFFFF, 0x00000001, 0x80400000, 0x7F7FFFFF, 0xFF7FFFFF,
           0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC12345, 0xFFC00001, 0x7F800001, 0x7FA00005,
           0xFF811111, 0x40400000, 0x3DCCCCCD, 0x3EAAAAAB, 0x4B800000, 0x4F000000, 0xCF000000,
           0x4F800000, 0x3F800001, 0x477FE000, 0x477FF000, 0x38800000, 0x33800000, 0x33000000,
           0x4EFFFFFF, 0xCF000001, 0x4F7FFFFF, 0x34000000, 0x00FFFFFF, 0x3F7FFFFF, 0xC0400000]
MIN_NORMAL = Fr(1, 2**126)
MAX_FINITE = Fr(2**24 - 1) * Fr(2)**104
RN, RP, RM, RZ = 0, 1, 2, 3


def is_nan(b):
    return (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0


def is_snan(b):
    return is_nan(b) and not b & 0x400000


def is_inf(b):
    return (b & 0x7FFFFFFF) == 0x7F800000


def is_zero(b):
    return (b & 0x7FFFFFFF) == 0


def value(b):
    e, m = (b >> 23) & 0xFF, b & 0x7FFFFF
    v = Fr(m, 2**149) if e == 0 else Fr(m | 0x800000, 2**23) * Fr(2)**(e - 127)
    return -v if b >> 31 else v


def floor_log2(a):
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fr(2)**e > a:
        e -= 1
    while Fr(2)**(e + 1) <= a:
        e += 1
    return e


def round_f32(x, rm, fz):
    """Rounds the exact non-zero x; returns (bits, exception flags)."""
    neg = x < 0
    a = -x if neg else x
    sign = 0x80000000 if neg else 0
    if fz and a < MIN_NORMAL:  # flushed before rounding: UFC without IXC
        return sign, UFC
    quantum = Fr(2)**(max(floor_log2(a), -126) - 23)
    q = a / quantum
    n = math.floor(q)
    rem = q - n
    if rm == RN:
        up = rem > Fr(1, 2) or (rem == Fr(1, 2) and n % 2 == 1)
    else:
        up = rem > 0 and ((rm == RP and not neg) or (rm == RM and neg))
    n += up
    flags = 0
    if rem:
        flags = IXC | (UFC if a < MIN_NORMAL else 0)  # tininess before rounding
    v = n * quantum
    if v > MAX_FINITE:
        to_inf = rm == RN or (rm == RP and not neg) or (rm == RM and neg)
        return sign | (0x7F800000 if to_inf else 0x7F7FFFFF), OFC | IXC
    if v == 0:
        return sign, flags
    if v < MIN_NORMAL:
        return sign | int(v * 2**149), flags
    e = floor_log2(v)
    return sign | ((e + 127) << 23) | (int(v / Fr(2)**(e - 23)) - 0x800000), flags


def flush_in(b, fz):
    if fz and (b & 0x7F800000) == 0 and b & 0x7FFFFF:
        return b & 0x80000000, IDC
    return b, 0


def pick_nan(ops, dn):
    for b in ops:
        if is_snan(b):
            return (DEFAULT_NAN if dn else b | 0x400000), IOC
    for b in ops:
        if is_nan(b):
            return (DEFAULT_NAN if dn else b), 0
    return None, 0


def exact_zero_sign(rm):
    return 0x80000000 if rm == RM else 0


def f_add(a, b, rm, fz, dn):
    (a, f1), (b, f2) = flush_in(a, fz), flush_in(b, fz)
    fl = f1 | f2
    nan, f = pick_nan([a, b], dn)
    if nan is not None:
        return nan, fl | f
    if is_inf(a) and is_inf(b):
        return (DEFAULT_NAN, fl | IOC) if (a ^ b) >> 31 else (a, fl)
    if is_inf(a) or is_inf(b):
        return (a if is_inf(a) else b), fl
    x = value(a) + value(b)
    if x == 0:
        if is_zero(a) and is_zero(b) and a >> 31 == b >> 31:
            return a & 0x80000000, fl
        return exact_zero_sign(rm), fl
    r, f = round_f32(x, rm, fz)
    return r, fl | f


def f_sub(a, b, rm, fz, dn):
    return f_add(a, b if is_nan(b) else b ^ 0x80000000, rm, fz, dn)


def f_mul(a, b, rm, fz, dn):
    (a, f1), (b, f2) = flush_in(a, fz), flush_in(b, fz)
    fl = f1 | f2
    nan, f = pick_nan([a, b], dn)
    if nan is not None:
        return nan, fl | f
    sign = (a ^ b) & 0x80000000
    if (is_inf(a) and is_zero(b)) or (is_zero(a) and is_inf(b)):
        return DEFAULT_NAN, fl | IOC
    if is_inf(a) or is_inf(b):
        return sign | 0x7F800000, fl
    if is_zero(a) or is_zero(b):
        return sign, fl
    r, f = round_f32(value(a) * value(b), rm, fz)
    return r, fl | f


def f_div(a, b, rm, fz, dn):
    (a, f1), (b, f2) = flush_in(a, fz), flush_in(b, fz)
    fl = f1 | f2
    nan, f = pick_nan([a, b], dn)
    if nan is not None:
        return nan, fl | f
    sign = (a ^ b) & 0x80000000
    if (is_inf(a) and is_inf(b)) or (is_zero(a) and is_zero(b)):
        return DEFAULT_NAN, fl | IOC
    if is_inf(a):
        return sign | 0x7F800000, fl
    if is_inf(b) or is_zero(a):
        return sign, fl
    if is_zero(b):
        return sign | 0x7F800000, fl | DZC
    r, f = round_f32(value(a) / value(b), rm, fz)
    return r, fl | f


def f_fma(acc, a, b, rm, fz, dn):
    """VFMA: acc + a*b, rounded once; NaN priority addend, then the multiplicands."""
    (a, f1), (b, f2), (acc, f3) = flush_in(a, fz), flush_in(b, fz), flush_in(acc, fz)
    fl = f1 | f2 | f3
    inf_times_zero = (is_inf(a) and is_zero(b)) or (is_zero(a) and is_inf(b))
    if inf_times_zero and is_nan(acc) and not is_snan(acc) and not (is_snan(a) or is_snan(b)):
        return DEFAULT_NAN, fl | IOC
    nan, f = pick_nan([acc, a, b], dn)
    if nan is not None:
        return nan, fl | f
    if inf_times_zero:
        return DEFAULT_NAN, fl | IOC
    psign = (a ^ b) & 0x80000000
    if is_inf(a) or is_inf(b):
        if is_inf(acc) and psign != acc & 0x80000000:
            return DEFAULT_NAN, fl | IOC
        return psign | 0x7F800000, fl
    if is_inf(acc):
        return acc, fl
    x = value(a) * value(b) + value(acc)
    if x == 0:
        if (is_zero(a) or is_zero(b)) and is_zero(acc) and psign == acc & 0x80000000:
            return psign, fl
        return exact_zero_sign(rm), fl
    r, f = round_f32(x, rm, fz)
    return r, fl | f


def f_sqrt(a, rm, fz, dn):
    a, fl = flush_in(a, fz)
    nan, f = pick_nan([a], dn)
    if nan is not None:
        return nan, fl | f
    if is_zero(a) or (is_inf(a) and not a >> 31):
        return a, fl
    if a >> 31:
        return DEFAULT_NAN, fl | IOC
    k = 200  # far more fraction bits than binary32 has: a sticky half-bit decides ties
    scaled = value(a) * Fr(4)**k
    whole = math.floor(scaled)
    s = math.isqrt(whole)
    exact = s * s == whole and scaled == whole
    r, f = round_f32(Fr(s, 2**k) + (0 if exact else Fr(1, 2**(k + 1))), rm, fz)
    return r, fl | f


def f_to_int(a, rm, fz, unsigned):
    a, fl = flush_in(a, fz)
    lo, hi = (0, M32) if unsigned else (-2**31, 2**31 - 1)
    if is_nan(a):
        return 0, fl | IOC
    if is_inf(a):
        return (lo if a >> 31 else hi) & M32, fl | IOC
    x = value(a)
    n = math.floor(x)
    rem = x - n
    if rm == RN:
        n += rem > Fr(1, 2) or (rem == Fr(1, 2) and n % 2 == 1)
    elif rm == RP:
        n += rem > 0
    elif rm == RZ:
        n += rem > 0 and x < 0
    if n > hi or n < lo:
        return (hi if n > hi else lo) & M32, fl | IOC
    return n & M32, fl | (IXC if rem else 0)


def f_from_int(a, rm, fz, signed):
    x = s32(a) if signed else a
    return round_f32(Fr(x), rm, fz) if x else (0, 0)


def f_to_fixed(a, fz, fbits, size, unsigned):
    """VCVT float to fixed-point: always round towards zero; 16-bit results are extended."""
    a, fl = flush_in(a, fz)
    lo, hi = (0, 2**size - 1) if unsigned else (-2**(size - 1), 2**(size - 1) - 1)
    if is_nan(a):
        return 0, fl | IOC
    if is_inf(a):
        return (lo if a >> 31 else hi) & M32, fl | IOC
    x = value(a) * 2**fbits
    n = math.trunc(x)
    if n > hi or n < lo:
        return (hi if n > hi else lo) & M32, fl | IOC
    return n & M32, fl | (IXC if x != n else 0)


def f_from_fixed(a, fz, fbits, size, unsigned):
    """VCVT fixed-point to float: always round to nearest (unlike VCVT from integer)."""
    x = a & (2**size - 1)
    if not unsigned and x >> (size - 1):
        x -= 2**size
    return round_f32(Fr(x, 2**fbits), RN, fz) if x else (0, 0)


FP_OPS = {  # name: (arity, fn(a, b, c, rounding mode, fz, dn))
    "add": (2, lambda a, b, c, rm, fz, dn: f_add(a, b, rm, fz, dn)),
    "sub": (2, lambda a, b, c, rm, fz, dn: f_sub(a, b, rm, fz, dn)),
    "mul": (2, lambda a, b, c, rm, fz, dn: f_mul(a, b, rm, fz, dn)),
    "div": (2, lambda a, b, c, rm, fz, dn: f_div(a, b, rm, fz, dn)),
    "fma": (3, lambda a, b, c, rm, fz, dn: f_fma(c, a, b, rm, fz, dn)),
    "sqrt": (1, lambda a, b, c, rm, fz, dn: f_sqrt(a, rm, fz, dn)),
    "cvt_s32": (1, lambda a, b, c, rm, fz, dn: f_to_int(a, RZ, fz, False)),
    "cvtr_s32": (1, lambda a, b, c, rm, fz, dn: f_to_int(a, rm, fz, False)),
    "cvtr_u32": (1, lambda a, b, c, rm, fz, dn: f_to_int(a, rm, fz, True)),
    "cvt_f32_s32": (1, lambda a, b, c, rm, fz, dn: f_from_int(a, rm, fz, True)),
    "cvt_f32_u32": (1, lambda a, b, c, rm, fz, dn: f_from_int(a, rm, fz, False)),
    "cvt_s32_fx16": (1, lambda a, b, c, rm, fz, dn: f_to_fixed(a, fz, 16, 32, False)),
    "cvt_u32_fx1": (1, lambda a, b, c, rm, fz, dn: f_to_fixed(a, fz, 1, 32, True)),
    "cvt_s16_fx8": (1, lambda a, b, c, rm, fz, dn: f_to_fixed(a, fz, 8, 16, False)),
    "cvt_u16_fx16": (1, lambda a, b, c, rm, fz, dn: f_to_fixed(a, fz, 16, 16, True)),
    "cvt_f32_s32_fx16": (1, lambda a, b, c, rm, fz, dn: f_from_fixed(a, fz, 16, 32, False)),
    "cvt_f32_u32_fx32": (1, lambda a, b, c, rm, fz, dn: f_from_fixed(a, fz, 32, 32, True)),
    "cvt_f32_s16_fx8": (1, lambda a, b, c, rm, fz, dn: f_from_fixed(a, fz, 8, 16, False)),
}


def fp_random(rng):
    r = rng.next()
    sel = rng.next()
    k = sel & 7
    if k in (0, 1):
        return r
    if k in (2, 3):
        return (r & 0x807FFFFF) | ((103 + (sel >> 8) % 49) << 23)
    if k == 4:
        return (r & 0x807FFFFF) | ((148 + (sel >> 8) % 13) << 23)
    if k == 5:
        return r & 0x80FFFFFF
    if k == 6:
        return (r & 0x807FFFFF) | ((250 + (sel >> 8) % 5) << 23)
    return EDGE_FP[(sel >> 8) % len(EDGE_FP)]


def fp_mode_checksum(arity, fn, m):
    """run_mode() of iss_fp.c for mode m (bits 1:0 rounding, bit 2 FZ, bit 3 DN)."""
    rm, fz, dn = m & 3, bool(m & 4), bool(m & 8)
    fpscr = (rm << 22) | (0x01000000 if fz else 0) | (0x02000000 if dn else 0)
    rng = Rng(0x9E3779B9 ^ ((m * 0x01000193) & M32))
    s = Checksum()
    ne = len(EDGE_FP)

    def call(a, b, c):
        r, flags = fn(a, b, c, rm, fz, dn)
        s.add(r)
        s.add(fpscr | flags)

    n_random = 300
    if arity == 1:
        for e in EDGE_FP:
            call(e, 0, 0x5555AAAA)
        for _ in range(4 * n_random):
            a = fp_random(rng)
            call(a, 0, rng.next())
    else:
        for i in range(ne):
            for j in range(ne):
                call(EDGE_FP[i], EDGE_FP[j], EDGE_FP[(i + 2 * j + 1) % ne])
        for _ in range(n_random):
            a, b, c = fp_random(rng), fp_random(rng), fp_random(rng)
            sel = rng.next()
            if sel & 3 == 0:
                b = ((a ^ (sel & 0x80000000)) + ((sel >> 4) & 0xFF) - 0x80) & M32
            call(a, b, c)
    return "%08x" % s.h


# ---- checks ----

class Report:
    def __init__(self):
        self.failures = 0
        self.checks = 0

    def check(self, what, expected, got):
        self.checks += 1
        if expected != got:
            self.failures += 1
            print(f"MISMATCH {what}: model {expected}, QEMU {got}")


def check_int(lines, rep):
    sums = table_sums(lines, "int.")
    for name, fn in INT_OPS.items():
        k, got = sums[name]
        rep.check(f"int.{name}", op_table_checksum(k, fn), got)
    for line in lines:
        if line.startswith("div "):
            f = dict(kv.split("=") for kv in line.split()[1:])
            a, b = int(f["a"], 16), int(f["b"], 16)
            rep.check(f"sdiv {a:#x}/{b:#x}", "%08x" % i_sdiv(a, b, 0, 0, 0)[0], f["sdiv"])
            rep.check(f"udiv {a:#x}/{b:#x}", "%08x" % (a // b if b else 0), f["udiv"])
    conds = {"eq": lambda n, z, c, v: z, "ne": lambda n, z, c, v: not z,
             "cs": lambda n, z, c, v: c, "cc": lambda n, z, c, v: not c,
             "mi": lambda n, z, c, v: n, "pl": lambda n, z, c, v: not n,
             "vs": lambda n, z, c, v: v, "vc": lambda n, z, c, v: not v,
             "hi": lambda n, z, c, v: c and not z, "ls": lambda n, z, c, v: not c or z,
             "ge": lambda n, z, c, v: n == v, "lt": lambda n, z, c, v: n != v,
             "gt": lambda n, z, c, v: not z and n == v, "le": lambda n, z, c, v: z or n != v}
    for line in lines:
        if line.startswith("it.cond "):
            for kv in line.split()[1:]:
                cc, got = kv.split("=")
                mask = sum(1 << k for k in range(16)
                           if conds[cc]((k >> 3) & 1, (k >> 2) & 1, (k >> 1) & 1, k & 1))
                rep.check(f"condition {cc}", "%08x" % mask, got)


def check_dsp(lines, rep):
    sums = table_sums(lines, "dsp.")
    for name, fn in DSP_OPS.items():
        k, got = sums[name]
        rep.check(f"dsp.{name}", op_table_checksum(k, fn), got)


def check_fp(lines, rep):
    printed = {}
    for line in lines:
        p = line.split()
        if len(p) > 6 and p[0].startswith("fp.") and p[1].startswith("fz="):
            printed[(p[0][3:], p[1], p[2])] = [kv.split("=")[1] for kv in p[3:7]]
    for name, (arity, fn) in FP_OPS.items():
        for fzdn in range(4):
            key = (name, f"fz={fzdn & 1}", f"dn={fzdn >> 1}")
            model = [fp_mode_checksum(arity, fn, rm | (fzdn << 2)) for rm in range(4)]
            rep.check(f"fp.{name} {key[1]} {key[2]} rn/rp/rm/rz", model, printed[key])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if shutil.which("qemu-system-arm") is None:
        print("SKIP: qemu-system-arm is not installed")
        return 77
    fw = sys.argv[1]
    rep = Report()
    check_int(run_qemu(f"{fw}/iss_int.elf"), rep)
    check_dsp(run_qemu(f"{fw}/iss_dsp.elf"), rep)
    check_fp(run_qemu(f"{fw}/iss_fp.elf"), rep)
    print(f"{rep.checks - rep.failures} of {rep.checks} checks agree with the host model")
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
