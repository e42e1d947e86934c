#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/<target>/ from readable call descriptions.

Each seed is the byte string the decoders (decode_*.c) read back as the call described: the
writers below mirror provider.c (integers little-endian in as few bytes as their range needs,
one byte per bool/rare/mode). Check a seed with ACLCTS_FUZZ_DESCRIBE=1 <target> FILE.
Usage: fuzz/seeds.py  (rewrites the seeds of the two operator corpora and the suite corpus;
every other file there, a committed finding or regression input, is kept; a seed renamed here
leaves its old file, to delete by hand)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PRODUCTS = ["ascend910", "ascend910b", "ascend910_93", "ascend310p", "ascend310b", "ascend950"]
SPECS = ["doc", "vendor@9.0", "vendor@8.5", "vendor@9.1", "vendor@9.2"]  # decode_common.c
DTYPES = ["float32", "float16", "bfloat16", "float64", "float32", "float16", "int32",
          "undefined", "int8", "int64", "bool", "complex64", "uint8", "int16", "uint64", "string"]
FORMATS = ["nchw", "ncl", "nd", "nhwc", "nc1hwc0", "fractal_z", "undefined", 29]
VALUES = ["uniform", "ints", "special", "wide"]
AVG_RANKS = [4, 3, 4, 3, 0, 1, 2, 5]
MASK_LENGTHS = [2, 2, 2, 2, 0, 1, 3, 4]


class W:
    def __init__(self):
        self.b = bytearray()

    def int(self, lo, hi, v):
        assert lo <= v <= hi, (lo, hi, v)
        n = (hi - lo).bit_length() + 7 >> 3
        self.b += (v - lo).to_bytes(n, "little") if n else b""

    def bool(self, v):
        self.b.append(1 if v else 0)

    def rare(self, v):
        self.b.append(15 if v else 0)

    def pick(self, lst, v):
        self.int(0, len(lst) - 1, lst.index(v))

    def mix(self, lo, hi, v):
        if lo <= v <= hi:
            self.b.append(0)
            self.int(lo, hi, v)
        else:
            self.b.append(6)
            self.b += (v & (2**64 - 1)).to_bytes(8, "little")


def header(w, c):
    w.pick(PRODUCTS, c.get("product", "ascend910b"))
    w.pick(SPECS, c.get("spec", "doc"))
    w.bool(c.get("det", False))
    w.rare(c.get("ws_null", False))
    w.rare(c.get("exec_null", False))
    w.int(0, 2**32 - 1, c.get("seed", 1))
    w.pick(VALUES, c.get("values", "uniform"))
    w.pick(DTYPES, c.get("dtype", "float32"))


def tensor(w, c, name, rank, dims, output):
    """NULL, dtype override, format override, view of one tensor."""
    w.rare(name in c.get("null", []))
    dt = c.get("dtypes", {}).get(name)
    w.rare(dt is not None)
    if dt is not None:
        w.pick(DTYPES, dt)
    fmt = c.get("formats", {}).get(name)
    w.rare(fmt is not None)
    if fmt is not None:
        w.pick(FORMATS, fmt)
    view = c.get("views", {}).get(name)  # ("offset", k) | ("strides", [..], k) | ("gaps", [..], k)
    numel = 1
    for d in dims[:rank]:
        numel *= max(d, 0)
    if view is None:
        w.int(0, 7, 0)
        return
    w.int(0, 7, {"offset": 5, "strides": 6, "gaps": 6, "permute": 7}[view[0]])
    if rank == 0 or numel == 0:
        return
    w.int(0, 7, view[-1])
    if view[0] == "strides":
        assert not output
        for s in view[1]:
            w.int(-2, 6, s)
    elif view[0] == "gaps":
        assert output
        for g in reversed(view[1]):
            w.int(0, 2, g)
    elif view[0] == "permute":
        for i, j in zip(range(rank - 1, 0, -1), view[1]):
            w.int(0, i, j)


def int_array(w, v, lo, hi):
    w.rare(v is None)
    v = v or []
    w.int(0, 3, len(v))
    for x in v:
        w.mix(lo, hi, x)


def pool_out(n, k, s, p, ceil):
    o = (n + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def avgpool(c):
    w = W()
    header(w, c)
    shape = c.get("shape", [1, 2, 6, 6])
    w.pick(AVG_RANKS, len(shape))
    for d in shape:
        w.int(-1, 14, d)
    k, s, p = c.get("kernel", [3, 3]), c.get("stride", [1, 1]), c.get("padding", [1, 1])
    int_array(w, k, -1, 6)
    int_array(w, s, -1, 6)
    int_array(w, p, -1, 3)
    w.bool(c.get("ceil", False))
    w.bool(c.get("cip", True))
    w.mix(-3, 3, c.get("divisor", 0))
    w.mix(0, 3, c.get("cube", 0))
    go = c.get("go_shift")  # (axis, delta) moves one gradOutput dim off the derived size
    if go:
        w.int(0, 7, 6)
        w.int(0, len(shape) - 1, go[0])
        w.int(-2, 2, go[1])
    else:
        w.int(0, 7, 0)
    w.int(0, 7, 0)  # gradInput = self
    r = len(shape)
    go_dims = list(shape)
    if r >= 2 and k and p is not None:
        ax = lambda a, i, d: d if not a else a[i if len(a) > i else 0]
        try:
            kh, kw = ax(k, 0, 1), ax(k, 1, 1)
            sh, sw = ax(s, 0, kh), ax(s, 1, kw)
            go_dims[-2] = pool_out(shape[-2], kh, sh, ax(p, 0, 0), c.get("ceil", False))
            go_dims[-1] = pool_out(shape[-1], kw, sw, ax(p, 1, 0), c.get("ceil", False))
        except ZeroDivisionError:
            pass
    for name, dims, out in (("grad_output", go_dims, False), ("self", shape, False),
                            ("grad_input", shape, True)):
        tensor(w, c, name, r, dims, out)
    return bytes(w.b)


def grid(c):
    w = W()
    header(w, c)
    n, ch, hi, wi, ho, wo = c.get("dims", [1, 2, 4, 4, 3, 3])
    w.int(-1, 3, n)
    w.rare(ch >= 2047)
    if ch >= 2047:
        w.int(0, 2, ch - 2047)
        n = hi = wi = ho = wo = 1
    else:
        w.int(-1, 4, ch)
    for d in (hi, wi, ho, wo):
        w.int(-1, 8, d)
    last = c.get("last", 2)
    w.rare(last != 2)
    if last != 2:
        w.int(0, 4, last)
    w.mix(0, 2, c.get("interp", 0))
    w.mix(0, 2, c.get("pad", 0))
    w.bool(c.get("align", False))
    mask = c.get("mask", [True, True])
    w.rare(mask is None)
    mask = mask if mask is not None else [True, True]
    w.pick(MASK_LENGTHS, len(mask))
    for m in mask:
        w.bool(m)
    shapes = [[n, ch, ho, wo], [n, ch, hi, wi], [n, ho, wo, last], [n, ch, hi, wi],
              [n, ho, wo, last]]
    ranks = c.get("ranks", {})
    names = ["grad_output", "input", "grid", "input_grad", "grid_grad"]
    for i, name in enumerate(names):
        if name in ranks:
            w.int(0, 7, 7)
            w.int(0, 5, ranks[name])
            shapes[i] = (shapes[i] + [1] * 5)[:ranks[name]]
        else:
            w.int(0, 7, 0)
    for i, name in enumerate(names):
        tensor(w, c, name, len(shapes[i]), shapes[i], i >= 3)
    return bytes(w.b)


AVG_SEEDS = {
    "valid_fp32_k3s1p1_det": dict(det=True),
    "valid_fp16_k2s2": dict(dtype="float16", kernel=[2], stride=[2], padding=[0], seed=7),
    "valid_bf16_ncl_ceil": dict(dtype="bfloat16", shape=[2, 5, 5], kernel=[2, 2], stride=[2, 1],
                                padding=[0, 1], ceil=True, cip=False, seed=3),
    "valid_910_cube1_divisor": dict(product="ascend910", cube=1, divisor=3, seed=4),
    "valid_950_global": dict(product="ascend950", shape=[1, 3, 4, 5], kernel=[4, 5],
                             stride=[4, 5], padding=[0], seed=5),
    "valid_310p_fp16": dict(product="ascend310p", dtype="float16", cube=3, seed=6),
    "valid_views": dict(views={"self": ("strides", [0, 5, -1, 6], 2),
                               "grad_output": ("permute", [1, 0, 1], 3),
                               "grad_input": ("gaps", [0, 1, 2, 1], 1)}, seed=8),
    "valid_ints_no_pad": dict(values="ints", padding=[0], kernel=[2, 3], stride=[1, 2],
                              cip=False, seed=9),
    "valid_special_values": dict(values="special", seed=10),
    "valid_wide_fp16": dict(values="wide", dtype="float16", seed=11),
    # gradInput's batch stride padded (C + 1 planes apart), the rest dense
    "valid_padded_batch": dict(shape=[2, 2, 6, 6], views={"grad_input": ("gaps", [0, 1, 0, 0], 0)},
                               seed=12),
    "error_pad_over_half_kernel": dict(kernel=[2], padding=[2], stride=[1]),
    "error_null_self": dict(null=["self"]),
    "error_null_kernel": dict(kernel=None),
    "error_null_stride_means_kernel": dict(stride=None),
    "error_int32": dict(dtype="int32"),
    "error_double": dict(dtype="float64"),
    "error_undefined": dict(dtype="undefined"),
    "error_mixed_dtypes": dict(dtypes={"self": "float16"}),
    "error_format_nd": dict(formats={"self": "nd"}),
    "error_rank5": dict(shape=[1, 1, 2, 6, 6]),
    "error_rank0": dict(shape=[]),
    "error_kernel_len3": dict(kernel=[3, 3, 3]),
    "error_kernel_zero": dict(kernel=[0, 3]),
    "error_stride_empty": dict(stride=[], spec="vendor@9.0"),
    "error_stride_empty_doc": dict(stride=[]),
    "error_divisor_300_910": dict(product="ascend910", divisor=300),
    "error_divisor_huge": dict(divisor=2**62),
    "error_cube_5_vendor_old": dict(cube=5, spec="vendor@8.5"),
    "error_cube_minus1": dict(cube=-1),
    "error_cube2_bf16_910b": dict(dtype="bfloat16", cube=2),
    "error_cube0_fp32_910": dict(product="ascend910", cube=0),
    "error_empty_doc": dict(shape=[0, 2, 6, 6]),
    "success_empty_vendor": dict(shape=[0, 2, 6, 6], spec="vendor@9.0"),
    "error_grad_output_shape": dict(go_shift=(3, 1)),
    "error_product_310b": dict(product="ascend310b"),
    "error_bf16_910": dict(product="ascend910", dtype="bfloat16"),
    "error_workspace_size_null": dict(ws_null=True),
    "error_executor_null": dict(exec_null=True),
    "error_negative_dim": dict(shape=[1, -1, 6, 6]),
    "error_negative_padding": dict(padding=[-1]),
}

GRID_SEEDS = {
    "valid_fp32_bilinear_zeros_det": dict(det=True),
    "valid_fp16_nearest_border_align": dict(dtype="float16", interp=1, pad=1, align=True, seed=2),
    "valid_bf16_reflection": dict(dtype="bfloat16", pad=2, seed=3, det=True),
    "valid_double": dict(dtype="float64", seed=4),
    "valid_950_fp32": dict(product="ascend950", dims=[2, 3, 5, 4, 2, 3], seed=5),
    "valid_910_fp16": dict(product="ascend910", dtype="float16", seed=6),
    "valid_mask_input_only": dict(mask=[True, False], seed=7),
    "valid_mask_grid_only": dict(mask=[False, True], seed=8),
    "valid_mask_empty": dict(mask=[]),
    "valid_mask_all_false": dict(mask=[False, False]),
    "valid_mask_long": dict(mask=[True, True, False, True], seed=9),
    "valid_views": dict(views={"input": ("strides", [0, 6, -2, 1], 1),
                               "grid": ("permute", [2, 0, 1], 2),
                               "input_grad": ("gaps", [1, 0, 2, 1], 3),
                               "grid_grad": ("permute", [1, 1, 0], 0)}, seed=10),
    "valid_special_values": dict(values="special", seed=11),
    "valid_ints_grid_on_edges": dict(values="ints", align=True, seed=12),
    "valid_wide_c_det": dict(dims=[1, 2049, 1, 1, 1, 1], det=True),
    "valid_padded_batch": dict(dims=[2, 2, 4, 4, 3, 3], seed=19,
                               views={"input_grad": ("gaps", [0, 1, 0, 0], 0),
                                      "grid_grad": ("gaps", [0, 1, 0, 0], 0)}),
    # bicubic (interpolationMode 2): accepted from release 9.1
    "valid_bicubic_91_zeros": dict(interp=2, spec="vendor@9.1", seed=13),
    "valid_bicubic_92_fp16_border_align": dict(interp=2, pad=1, align=True, dtype="float16",
                                               spec="vendor@9.2", seed=14),
    "valid_bicubic_92_bf16_reflection_det": dict(interp=2, pad=2, det=True, dtype="bfloat16",
                                                 spec="vendor@9.2", seed=15),
    "valid_bicubic_double_reflection_align": dict(interp=2, pad=2, align=True, dtype="float64",
                                                  spec="vendor@9.1", seed=16),
    "valid_bicubic_950_views": dict(interp=2, product="ascend950", spec="vendor@9.2", seed=17,
                                    views={"input": ("strides", [0, 6, -2, 1], 1),
                                           "grid_grad": ("permute", [1, 1, 0], 0)}),
    "valid_bicubic_special_values": dict(interp=2, values="special", spec="vendor@9.2", seed=18),
    "valid_bicubic_wide_c_det": dict(interp=2, dims=[1, 2047, 1, 1, 1, 1], det=True,
                                     spec="vendor@9.1"),
    "error_bicubic_vendor90": dict(interp=2, spec="vendor@9.0"),
    "error_grid_last_dim_3": dict(last=3),
    "error_null_input": dict(null=["input"]),
    "error_null_grid_grad": dict(null=["grid_grad"]),
    "error_mask_null_doc": dict(mask=None),
    "success_mask_null_vendor": dict(mask=None, spec="vendor@9.0"),
    "error_bicubic": dict(interp=2),
    "error_interp_huge": dict(interp=2**40),
    "error_padding_mode_3": dict(pad=3),
    "error_int32": dict(dtype="int32"),
    "error_undefined": dict(dtype="undefined"),
    "error_mixed_dtypes": dict(dtypes={"grid": "float16"}),
    "error_grid_rank3": dict(ranks={"grid": 3}),
    "error_input_rank5": dict(ranks={"input": 5}),
    "error_input_h0": dict(dims=[1, 2, 0, 4, 3, 3]),
    "success_empty_n0": dict(dims=[0, 2, 4, 4, 3, 3]),
    "error_product_310p": dict(product="ascend310p"),
    "error_bf16_910": dict(product="ascend910", dtype="bfloat16"),
    "error_double_910": dict(product="ascend910", dtype="float64"),
    "error_workspace_size_null": dict(ws_null=True),
    "error_executor_null": dict(exec_null=True),
    "error_negative_dim": dict(dims=[1, -1, 4, 4, 3, 3]),
}

SUITE_SEEDS = {
    "minimal.yaml": "suite: fuzz_seed\nop: avgpool2d_backward\ncases:\n  - name: a\n"
                    "    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n    stride: [2]\n"
                    "    padding: [0]\n    dtype: float32\n",
    "grid.yaml": "suite: fuzz_grid\nop: grid_sampler2d_backward\nproduct: [ascend910b]\n"
                 "spec: vendor\nseed: 3\ncases:\n  - name: g\n    input_shape: [1, 2, 3, 3]\n"
                 "    grid_shape: [1, 2, 2, 2]\n    output_mask: [true, false]\n"
                 "    data: {grid: {uniform: [-1, 1]}}\n    matrix: {dtype: [float32, float16]}\n",
    "errors.yaml": "suite: x\nop: nope\ncases: []\n",
    "syntax.yaml": "suite: [unclosed\n  - : :\n",
    "anchors.yaml": "a: &x [1, 2]\nb: *x\n",
}


def write(target, seeds, encode):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name, c in seeds.items():
        data = encode(c) if encode else c.encode()
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write("fuzz_avgpool2d_backward", AVG_SEEDS, avgpool)
    write("fuzz_grid_sampler2d_backward", GRID_SEEDS, grid)
    write("fuzz_suite_yaml", SUITE_SEEDS, None)
