#!/usr/bin/python3
"""Writes the NumPy-derived expected data of tests/runtime/ into tests/data/runtime/.

Run with the system NumPy (Debian 12: numpy 1.24):  /usr/bin/python3 scripts/test_data/runtime.py

  random/  outputs of numpy.random.RandomState for random_test.cpp (bit-for-bit checks)
  npy/     .npy files written by NumPy (every dtype, C and Fortran order, big-endian,
           versions 2.0 and 3.0, 0-d, empty, and dtypes tgc must refuse) for npy_test.cpp
  format/  <case>.npy inputs and <case>.txt = str(array) under NumPy's default print
           options, for tensor_format_test.cpp. float32 arrays (not 0-d ones) are expected
           to print like NumPy prints them converted to float64 (tgc's choice, see
           tensor_format.cpp); transposed_* cases expect str(array.T).
"""
import os
import shutil
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "runtime")


def path(*parts):
    p = os.path.join(ROOT, *parts)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def num(v):
    """Integers in file names: -5 -> m5."""
    return str(v).replace("-", "m")


# ---- random ------------------------------------------------------------------------------

# randint cases (dtype, low, high), all drawn with RandomState(1234).randint(low, high, (10, 20)).
# They cover each path of NumPy's masked rejection: ranges of 0 (no draws), small, 2**k - 1
# (mask == range), just past a power of two, exactly 2**32 (unmasked 32-bit words), past
# 2**32 (64-bit draws), negative lows, and the buffered 16/8/1-bit draws of narrow dtypes.
RANDINT_CASES = [
    ("int64", 0, 10), ("int64", -5, 5), ("int64", 5, 6), ("int64", 0, 2**31 - 1),
    ("int64", 0, 2**31), ("int64", -2**31, 2**31), ("int64", 0, 2**32), ("int64", 0, 2**32 + 1),
    ("int64", 0, 2**40), ("int64", -2**40, 2**40 + 17), ("int64", -2**62, 2**62),
    ("int64", -2**63, 2**63 - 1), ("int64", 1000, 1001 + 2**33),
    ("int32", 0, 10), ("int32", -7, 1000), ("int32", -2**31, 2**31 - 1), ("int32", 0, 2**31 - 1),
    ("int16", -1000, 1000), ("int16", -2**15, 2**15 - 1), ("int8", -100, 100), ("int8", 0, 3),
    ("uint8", 0, 256), ("uint8", 10, 20), ("bool", 0, 2), ("bool", 1, 2),
]


def write_random():
    d = "random"
    for seed, n in [(22, 1000), (1234, 1000), (0, 100), (2**32 - 1, 100)]:
        np.save(path(d, f"rand_seed{seed}.npy"), np.random.RandomState(seed).rand(n))
    for seed, n in [(22, 1000), (1234, 1000)]:
        np.save(path(d, f"randn_seed{seed}.npy"), np.random.RandomState(seed).randn(n))
    # The tutorial's data: the last values of RandomState(22).rand(230400).
    np.save(path(d, "rand_seed22_230400_tail.npy"), np.random.RandomState(22).rand(230400)[-10:])
    np.save(path(d, "uniform_seed22.npy"), np.random.RandomState(22).uniform(-3.0, 5.0, (20, 25)))
    np.save(path(d, "normal_seed1234.npy"), np.random.RandomState(1234).normal(2.5, 0.5, 301))
    for dtype, low, high in RANDINT_CASES:
        values = np.random.RandomState(1234).randint(low, high, (10, 20), dtype=dtype)
        np.save(path(d, f"randint_{dtype}_{num(low)}_{num(high)}.npy"), values)

    # One generator through a mix of calls: state carries across methods, the cached second
    # gaussian survives other draws, a narrow randint drops its leftover bits, a range of
    # size 1 draws nothing, and seed() forgets the cached gaussian. Mirrored in random_test.cpp.
    rs = np.random.RandomState(22)
    parts = [
        rs.rand(3),
        rs.randn(5),                       # odd: leaves a gaussian cached
        rs.randint(0, 100, 4),             # does not touch the cache
        rs.randn(1),                       # the cached value
        rs.uniform(1.0, 2.0, 2),
        rs.randint(-2**40, 2**40, 3),
        rs.randint(7, 8, 2),               # range of one value: no draws
        rs.randn(2),
        rs.randint(0, 10, 5, dtype=np.int8),
        rs.rand(2),
        rs.randn(3),                       # leaves a gaussian cached...
    ]
    rs.seed(1234)                          # ...which seed() must forget
    parts += [rs.randn(2), rs.normal(-1.0, 3.0, 3), rs.randint(-3, 3, 4, dtype=np.int32), rs.rand(1)]
    np.save(path(d, "mixed_seed22.npy"), np.concatenate([p.astype(np.float64) for p in parts]))


# ---- npy ---------------------------------------------------------------------------------

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float32", "float64", "float16", "bfloat16"]


def as_bfloat16(a):
    """float32 values exact in bfloat16, as ml_dtypes saves a bfloat16 array: 2 raw bytes each
    ('<V2'), the float32's top half. (Debian's NumPy has no ml_dtypes.)"""
    bits = (np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16).astype("<u2")
    return bits.view("V2")


def sample(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    v = np.arange(n) * 7 - 5
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        v = v * 0.25 + 0.125
    if dtype == "uint8":
        v = v + 5
    if dtype == "bfloat16":
        return as_bfloat16(v.astype(np.float32)).reshape(shape)
    return v.astype(dtype).reshape(shape)


def save(file, array):
    """np.save, but a bfloat16 ('V2') array's header says '<V2', as ml_dtypes' arrays do
    (a plain NumPy void array says '|V2'; the header's length is the same)."""
    np.save(file, array)
    if array.dtype == np.dtype("V2"):
        with open(file, "rb") as f:
            data = f.read()
        with open(file, "wb") as f:
            f.write(data.replace(b"'descr': '|V2'", b"'descr': '<V2'", 1))


def write_npy_files():
    d = "npy"
    for dt in DTYPES:
        save(path(d, f"c_{dt}.npy"), sample(dt, (2, 3)))
        save(path(d, f"f_{dt}.npy"), np.asfortranarray(sample(dt, (3, 4))))
    np.save(path(d, "f3d_float32.npy"), np.asfortranarray(sample("float32", (2, 3, 4))))
    for dt in ["int16", "int32", "int64", "float32", "float64"]:
        np.save(path(d, f"be_{dt}.npy"), sample(dt, (2, 3)).astype(np.dtype(dt).newbyteorder(">")))
    np.save(path(d, "be_f_float64.npy"),
            np.asfortranarray(sample("float64", (3, 2)).astype(">f8")))
    with open(path(d, "v2_float64.npy"), "wb") as f:
        np.lib.format.write_array(f, sample("float64", (4, 2)), version=(2, 0))
    with open(path(d, "v3_int32.npy"), "wb") as f:
        np.lib.format.write_array(f, sample("int32", (5,)), version=(3, 0))
    np.save(path(d, "scalar_float64.npy"), np.array(2.5))
    np.save(path(d, "scalar_int32.npy"), np.array(-7, dtype=np.int32))
    np.save(path(d, "scalar_bool.npy"), np.array(True))
    np.save(path(d, "empty_float32_0x3.npy"), np.zeros((0, 3), np.float32))
    np.save(path(d, "empty_int64_0.npy"), np.zeros((0,), np.int64))
    # A shape whose header length crosses a 64-byte boundary only with NumPy's spare room
    # after the dict sized by the digits of shape[0]: checks that detail of the writer.
    np.save(path(d, "empty_header_growth.npy"), np.zeros((100, 0) + (1,) * 12))
    np.save(path(d, "vector_int64_1000.npy"), np.arange(1000, dtype=np.int64) * 3 - 1000)
    # dtypes that tgc must refuse with a clear message
    np.save(path(d, "bad_complex64.npy"), np.array([1 + 2j], np.complex64))
    np.save(path(d, "bad_float128.npy"), np.array([1.5], np.longdouble))
    np.save(path(d, "bad_void3.npy"), np.zeros(2, "V3"))
    np.save(path(d, "bad_uint32.npy"), np.array([7], np.uint32))
    np.save(path(d, "bad_unicode.npy"), np.array(["abc"]))
    np.save(path(d, "bad_object.npy"), np.array([1, "x"], dtype=object), allow_pickle=True)
    np.save(path(d, "bad_structured.npy"), np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]))


# ---- format ------------------------------------------------------------------------------

def format_cases():
    rs = np.random.RandomState(7)
    f64 = np.float64
    cases = {
        "f64_maxprec_padding": np.array([1.5, 2.25, -3.0]),
        "f64_whole": np.array([1.0, 2.0, 30.0]),
        "f64_rand": rs.rand(10),
        "f64_eight_digits_2d": rs.rand(4, 5) * 100,
        "f64_wrap": rs.rand(20) - 0.5,
        "f64_round_half_even": np.array([0.001953125, 0.5]),
        "f64_mixed_precision": np.array([0.1, 0.25, 100.125]),
        "f64_large_positional": np.array([12345678.9, 20000.5]),
        "f64_zeros": np.zeros((2, 2)),
        "f64_negative_zero": np.array([-0.0, 0.0, 1.5]),
        "f64_nonfinite": np.array([1.0, np.nan, np.inf, -np.inf, -2.5]),
        "f64_nan_inf_only": np.array([np.nan, np.inf]),
        "f64_nan_neginf_only": np.array([np.nan, -np.inf]),
        "f64_nan_with_small": np.array([np.nan, 0.5]),
        "f64_nan_whole": np.array([np.nan, 1.0, 2.0]),
        "f64_sci_small": np.array([1e-5, 1.0, 123.0]),
        "f64_sci_large": np.array([1e8, 1.0]),
        "f64_sci_ratio": np.array([0.001, 2.0]),
        "f64_sci_negative": np.array([-1.5e-7, 2.25e3, 0.0]),
        "f64_sci_big_exponent": np.array([1e-300, 1e300, -5.5e100]),
        "f64_sci_nan": np.array([1e-9, np.nan, -np.inf]),
        "f64_sci_rand": rs.rand(6) * 10.0 ** np.arange(-3, 3) * 1e-3,
        "f64_sci_rounding": np.array([1.23456789123e-5, 9.999999999e10]),
        "f64_3d": rs.randn(2, 3, 4),
        "f64_column": rs.rand(3, 1),
        "f64_1x1": np.array([[3.25]]),
        "f64_summary_1d": rs.rand(2000),
        "f64_summary_2d": rs.randn(40, 30),
        "f64_summary_rows_only": rs.rand(400, 3),
        "f32_rand": rs.rand(7).astype(np.float32),
        "f32_summary": rs.rand(1001).astype(np.float32) * np.float32(3),
        "f32_fortran_2d": np.asfortranarray(rs.rand(3, 4).astype(np.float32)),
        "i64_mixed": np.array([-5, 10, 300]),
        "i64_wrap": (rs.randint(-2**40, 2**40, 30)),
        "i64_2d": rs.randint(-50, 50, (3, 4)),
        "i64_summary": np.arange(2000, dtype=np.int64) - 1000,
        "i32_3d": np.arange(24, dtype=np.int32).reshape(2, 3, 4),
        "i16_summary_3d": rs.randint(-300, 300, (11, 10, 10)).astype(np.int16),
        "i8": np.array([-128, 0, 127], np.int8),
        "u8_2d": np.array([[0, 255], [7, 30]], np.uint8),
        "bool_1d": np.array([True, False, True]),
        "bool_2d": np.array([[True, True], [False, True]]),
        "bool_summary": rs.rand(1500) < 0.5,
        "scalar_f64": np.array(1.5),
        "scalar_f64_long": np.array(1.2345678912345),
        "scalar_f64_big": np.array(1e20),
        "scalar_f64_small": np.array(1.5e-5),
        "scalar_f64_boundary": np.array(1e16),
        "scalar_f64_below_boundary": np.array(9999999999999998.0),
        "scalar_f64_ten_thousandth": np.array(1e-4),
        "scalar_f64_negzero": np.array(-0.0),
        "scalar_f64_nan": np.array(np.nan),
        "scalar_f64_neginf": np.array(-np.inf),
        "scalar_f32": np.array(0.1, np.float32),
        "scalar_f32_small": np.array(1e-4, np.float32),
        "scalar_i64": np.array(-42),
        "scalar_u8": np.array(200, np.uint8),
        "scalar_bool": np.array(False),
        "empty_1d": np.zeros(0),
        "empty_2d": np.zeros((2, 0), np.int32),
        # transposed_* cases: the test prints the loaded array's transpose (a strided view)
        "transposed_f64": rs.rand(3, 5),
        "transposed_i64": np.arange(12).reshape(3, 4),
    }
    return cases


def write_format_files():
    for name, a in format_cases().items():
        np.save(path("format", name + ".npy"), a)
        shown = a.T if name.startswith("transposed_") else a
        if shown.dtype == np.float32 and shown.ndim > 0:
            shown = shown.astype(np.float64)  # 0-d float32 prints like NumPy: str(np.float32(x))
        with open(path("format", name + ".txt"), "w") as f:
            f.write(str(shown))


def main():
    if np.__version__.split(".")[:2] != ["1", "24"]:
        print(f"warning: expected numpy 1.24, running {np.__version__}", file=sys.stderr)
    np.set_printoptions()  # the defaults: precision 8, floatmode maxprec, linewidth 75
    for sub in ("random", "npy", "format"):  # only this script's folders: others may share ROOT
        shutil.rmtree(os.path.join(ROOT, sub), ignore_errors=True)
    write_random()
    write_npy_files()
    write_format_files()
    total = sum(os.path.getsize(os.path.join(dp, f))
                for sub in ("random", "npy", "format")
                for dp, _, fs in os.walk(os.path.join(ROOT, sub)) for f in fs)
    print(f"wrote {os.path.normpath(ROOT)}/{{random,npy,format}} ({total} bytes)")


if __name__ == "__main__":
    main()
