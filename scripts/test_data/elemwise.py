#!/usr/bin/python3
"""Writes tests/data/elemwise/cases.json: NumPy-derived expected results of every scalar op
of the elemwise family, for every input dtype it accepts (plus mixed-dtype and floatX cases).

tgc's semantics (see ops/elemwise/scalar_op.h): inputs are converted to the operand dtype
of the op's type rule; floats then compute in float64 and round once to the output dtype;
integers and bool compute in int64 and wrap to the output dtype. So the expected value is
NumPy's function applied in float64 / int64 to the converted operands, cast to the output
dtype. Where tgc's dtype agrees with NumPy's own result dtype (native arithmetic,
comparisons, ...), the script also checks that NumPy's native result is the same, so the
file cannot drift from NumPy's semantics unnoticed.

The cases are one JSON file (one case a line) rather than many small .npy files: every
case mixes dtypes, and one reviewable file keeps a diff of the expectations readable.

Run with the system NumPy:  /usr/bin/python3 scripts/test_data/elemwise.py
"""
import json
import math
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "elemwise", "cases.json")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8"]
FLOATS = ["float32", "float64"]

# Operand values per dtype: a, b, c (same length within a dtype).
VALUES = {
    "bool": ([1, 0, 1, 0, 1, 0], [1, 1, 0, 0, 1, 0], [0, 1, 1, 0, 1, 1]),
    "int8": ([-128, -7, -1, 0, 3, 100, 127], [3, 2, -2, 5, -4, 7, 1], [5, -3, 4, 1, -2, 50, 0]),
    "int16": ([-300, -7, -1, 0, 5, 1000, 32767], [7, 2, -3, 4, -6, 9, 2], [2, -8, 3, 1, 0, 999, 5]),
    "int32": ([-70000, -7, -1, 0, 5, 123456, 2147483647], [9, 2, -3, 4, -6, 10, 3],
              [5, -9, 3, 1, 0, 2000, 6]),
    "int64": ([-(2**40), -7, -1, 0, 5, 2**40 + 3, 9000000000000000007], [11, 2, -3, 4, -6, 10, 3],
              [5, -9, 3, 1, 0, 2000, 6]),
    "uint8": ([0, 1, 7, 128, 200, 255, 3], [3, 2, 5, 1, 7, 4, 9], [5, 0, 3, 200, 9, 100, 4]),
    "float32": ([-2.5, -1.0, -0.0, 0.5, 3.25, 1e-3, 88.5, float("nan"), float("inf"), -float("inf")],
                [1.5, -0.75, 2.0, -3.0, 0.5, 0.0, 2.0, 1.0, -float("inf"), 2.5],
                [0.0, 1.0, -1.0, 2.0, float("nan"), 3.0, -2.0, 0.5, 1.0, 0.0]),
    "float64": ([-2.5, -1.0, -0.0, 0.5, 3.25, 1e-300, 709.5, float("nan"), float("inf"), -float("inf"),
                 0.1, -710.0],
                [1.5, -0.75, 2.0, -3.0, 0.5, 0.0, 2.0, 1.0, -float("inf"), 2.5, 0.3, 7.0],
                [0.0, 1.0, -1.0, 2.0, float("nan"), 3.0, -2.0, 0.5, 1.0, 0.0, 0.2, -1.0]),
}

def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)

def erfc(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x)

def sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))

# name -> (arity, rule, bool rule, float64 function, int64 function or None)
OPS = {
    "add": (2, "promote", "keep", np.add, np.add),
    "sub": (2, "promote", "reject", np.subtract, np.subtract),
    "mul": (2, "promote", "keep", np.multiply, np.multiply),
    "true_div": (2, "float", None, np.true_divide, None),
    "floor_div": (2, "promote", "int8", np.floor_divide, np.floor_divide),
    "mod": (2, "promote", "int8", np.remainder, np.remainder),
    "pow": (2, "promote", "int8", np.power, np.power),
    "neg": (1, "promote", "reject", np.negative, np.negative),
    "abs": (1, "promote", "keep", np.abs, np.abs),
    "sign": (1, "promote", "reject", np.sign, np.sign),
    "lt": (2, "bool", None, np.less, np.less),
    "le": (2, "bool", None, np.less_equal, np.less_equal),
    "gt": (2, "bool", None, np.greater, np.greater),
    "ge": (2, "bool", None, np.greater_equal, np.greater_equal),
    "eq": (2, "bool", None, np.equal, np.equal),
    "neq": (2, "bool", None, np.not_equal, np.not_equal),
    "logical_and": (2, "bool", None, np.logical_and, np.logical_and),
    "logical_or": (2, "bool", None, np.logical_or, np.logical_or),
    "logical_xor": (2, "bool", None, np.logical_xor, np.logical_xor),
    "logical_not": (1, "bool", None, np.logical_not, np.logical_not),
    "exp": (1, "float", None, np.exp, None),
    "exp2": (1, "float", None, np.exp2, None),
    "expm1": (1, "float", None, np.expm1, None),
    "log": (1, "float", None, np.log, None),
    "log2": (1, "float", None, np.log2, None),
    "log10": (1, "float", None, np.log10, None),
    "log1p": (1, "float", None, np.log1p, None),
    "sqrt": (1, "float", None, np.sqrt, None),
    "rsqrt": (1, "float", None, lambda x: 1 / np.sqrt(x), None),
    "square": (1, "promote", "int8", np.square, np.square),
    "sin": (1, "float", None, np.sin, None),
    "cos": (1, "float", None, np.cos, None),
    "tan": (1, "float", None, np.tan, None),
    "tanh": (1, "float", None, np.tanh, None),
    "sinh": (1, "float", None, np.sinh, None),
    "cosh": (1, "float", None, np.cosh, None),
    "arcsin": (1, "float", None, np.arcsin, None),
    "arccos": (1, "float", None, np.arccos, None),
    "arctan": (1, "float", None, np.arctan, None),
    "arctan2": (2, "float", None, np.arctan2, None),
    "erf": (1, "float", None, erf, None),
    "erfc": (1, "float", None, erfc, None),
    "sigmoid": (1, "float", None, sigmoid, None),
    "softplus": (1, "float", None, lambda x: np.logaddexp(0, x), None),
    "floor": (1, "float", None, np.floor, None),
    "ceil": (1, "float", None, np.ceil, None),
    "round": (1, "promote", "int8", np.round, lambda x: x),
    "trunc": (1, "float", None, np.trunc, None),
    "clip": (3, "promote", "keep", lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
             lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)),
    "maximum": (2, "promote", "keep", np.maximum, np.maximum),
    "minimum": (2, "promote", "keep", np.minimum, np.minimum),
    "where": (3, "where", None, lambda c, a, b: np.where(c != 0, a, b),
              lambda c, a, b: np.where(c != 0, a, b)),
    "isnan": (1, "bool", None, np.isnan, None),
    "isinf": (1, "bool", None, np.isinf, None),
}

# NumPy's own function on native arrays, to cross-check tgc's semantics where the result
# dtypes agree (names that differ from the table's functions).
NATIVE = {"sign": np.sign, "round": np.round, "clip": np.clip}
CROSS_CHECKED = []


def promote(a, b):
    """tgc's promotion: NumPy's, except that an integer/bool meeting a float keeps the float."""
    if a in FLOATS or b in FLOATS:
        if a in FLOATS and b in FLOATS:
            return a if np.dtype(a).itemsize >= np.dtype(b).itemsize else b
        return a if a in FLOATS else b
    return str(np.promote_types(a, b))


def promote_all(dts):
    p = dts[0]
    for t in dts[1:]:
        p = promote(p, t)
    return p


def signature(op, dts, floatx):
    """(operand dtypes, compute dtype, out dtype) or None when tgc rejects the dtypes."""
    arity, rule, bools, _, _ = OPS[op]
    if rule == "promote":
        p = promote_all(dts)
        if p == "bool" and bools == "reject":
            return None
        if p == "bool" and bools == "int8":
            p = "int8"
        return [p] * arity, p, p
    if rule == "float":
        p = promote_all(dts)
        p = p if p in FLOATS else floatx
        return [p] * arity, p, p
    if rule == "bool":
        p = promote_all(dts)
        return [p] * arity, p, "bool"
    if rule == "where":
        p = promote(dts[1], dts[2])
        return ["bool", p, p], p, p
    raise ValueError(rule)


def encode(values, dtype):
    """JSON-safe values: numbers, with 'nan'/'inf'/'-inf' as strings; float32 printed in its
    own shortest form (parse as double, round to float32 to get the exact value back)."""
    out = []
    for v in np.asarray(values).astype(dtype):
        if dtype not in FLOATS:
            out.append(int(v))  # bool as 0/1
        elif np.isnan(v):
            out.append("nan")
        elif np.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        else:
            out.append(float(str(v)))  # str() is the shortest form that round-trips v's dtype
    return out


def operands_for(op, dts):
    """Input arrays (native dtypes), tailored where an op would otherwise error or be UB."""
    arrays = []
    n = min(len(VALUES[t][0]) for t in dts)
    for k, t in enumerate(dts):
        vals = list(VALUES[t][k][:n])
        if k == 1 and op in ("floor_div", "mod") and t not in FLOATS:
            vals = [v if v != 0 else 1 for v in vals]  # integer division by zero is an error
        if k == 1 and op == "pow" and t not in FLOATS:
            vals = [abs(v) % 5 for v in vals]  # negative integer powers are an error
        arrays.append(np.array(vals, dtype=t))
    return arrays


def compute(op, dts, floatx):
    sig = signature(op, dts, floatx)
    if sig is None:
        return None
    operands, compute_t, out_t = sig
    arity, rule, _, ffn, ifn = OPS[op]
    args = operands_for(op, dts)
    conv = [a.astype(t) for a, t in zip(args, operands)]
    with np.errstate(all="ignore"):
        if compute_t in FLOATS or ifn is None:
            res = ffn(*[c.astype(np.float64) for c in conv])
        else:
            res = ifn(*[c.astype(np.int64) for c in conv])
        expected = np.asarray(res).astype(out_t)
        # Cross-check with NumPy's native loop where it yields tgc's dtype.
        if all(t == dts[0] for t in dts) and rule in ("promote", "bool") and op != "clip":
            try:
                native = NATIVE.get(op, ffn)(*args)
            except TypeError:
                native = None
            if native is not None and str(np.asarray(native).dtype) == out_t:
                if out_t in FLOATS:
                    ok = np.allclose(native, expected, rtol=2e-7 if out_t == "float32" else 1e-15,
                                     atol=0, equal_nan=True)
                else:
                    ok = np.array_equal(native, expected)
                assert ok, (op, dts, native, expected)
                CROSS_CHECKED.append(op)
    return {"op": op, "in": dts, "floatx": floatx, "out": out_t,
            "args": [encode(a, t) for a, t in zip(args, dts)], "expect": encode(expected, out_t)}


def cast_case(src, dst):
    vals = VALUES[src][0]
    if src in FLOATS and dst not in FLOATS and dst != "bool":
        # NumPy leaves out-of-range and NaN float->int conversions undefined; tgc saturates
        # (tested by hand in the C++ test). Keep in-range, truncating values here.
        vals = [-2.5, -1.0, -0.0, 0.5, 3.75, 100.9] if dst != "uint8" else [0.0, 0.5, 3.75, 100.9, 255.0]
    a = np.array(vals, dtype=src)
    with np.errstate(all="ignore"):
        expected = a.astype(dst)
    return {"op": "cast", "in": [src], "to": dst, "floatx": "float32", "out": dst,
            "args": [encode(a, src)], "expect": encode(expected, dst)}


def main():
    cases = []
    for op, (arity, rule, bools, _, _) in OPS.items():
        for t in DTYPES:
            dts = [t] * arity
            case = compute(op, dts, "float64")
            if case is None:
                cases.append({"op": op, "in": dts, "floatx": "float64", "error": "TypeError"})
            else:
                cases.append(case)
        if rule == "float":
            # FloatResult with integers under the default floatX: computed in float32.
            cases.append(compute(op, ["int32"] * arity, "float32"))
    # where with a non-bool condition (NaN is true) and mixed branch dtypes.
    cases.append(compute("where", ["float32", "int8", "int16"], "float32"))
    cases.append(compute("where", ["int32", "float64", "float64"], "float32"))
    # Mixed-dtype promotion, converted per element.
    for op, dts in [("add", ["int32", "float32"]), ("add", ["uint8", "int8"]),
                    ("mul", ["bool", "int16"]), ("sub", ["int64", "float64"]),
                    ("lt", ["int32", "float32"]), ("eq", ["uint8", "int8"]),
                    ("true_div", ["int32", "int32"]), ("maximum", ["float32", "float64"]),
                    ("logical_and", ["int8", "float32"]), ("pow", ["float32", "int8"]),
                    ("clip", ["float32", "int8", "int16"])]:
        cases.append(compute(op, dts, "float32"))
    for src in DTYPES:
        for dst in DTYPES:
            cases.append(cast_case(src, dst))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("[\n")
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]\n")
    print(f"wrote {len(cases)} cases to {OUT} ({os.path.getsize(OUT)} bytes); "
          f"{len(CROSS_CHECKED)} cross-checked against NumPy's native loops")


if __name__ == "__main__":
    main()
