"""The modules of the archive fixtures: scripted, saved by torch.jit.save, and run
by torch on the calls listed in CASES; tools/archives/make_archives.py writes
the archives and torch's results to tests/fixtures/archives."""

import math
import warnings
from typing import Any, Dict, Final, List, NamedTuple, Optional, Tuple, Union

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.scale = 2.0

    def forward(self, x):
        return torch.relu(self.lin(x)) * self.scale


class Containers(nn.Module):
    """Submodules, a ModuleList, a ModuleDict, a buffer, a mutated counter, an
    Optional attribute and a helper method that raises."""
    count: int
    opt: Optional[Tensor]

    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
        self.d = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
        self.count = 0
        self.opt = None
        self.register_buffer("buf", torch.arange(3.))

    def helper(self, x: Tensor) -> Tensor:
        if x.sum() > 100:
            raise ValueError("too big")
        return x + self.buf

    def forward(self, x):
        y = self.sub(x)
        for layer in self.layers:
            y = layer(y)
        y = self.d["a"](y) + self.d["b"](y)
        self.count += 1
        o = self.opt
        if o is not None:
            y = y + o
        return self.helper(y)


class Loops(nn.Module):
    hist: List[int]

    def __init__(self):
        super().__init__()
        self.hist = []
        self.names = {"a": 1, "b": 2}
        self.t = (1, 2.5)
        self.c = torch.tensor([1.5, 2.5])

    def forward(self, x: Tensor, n: int) -> Tuple[Tensor, int]:
        s = 0
        for i in range(n):
            s += i
            x = x * 2
        while s > 3:
            s = s // 2
        xs = [x, x + 1]
        for t in xs:
            x = x + t
        self.hist.append(s)
        d: Dict[str, Tensor] = {}
        d["k"] = x
        z = torch.zeros(2, 3, dtype=torch.float64)
        w = torch.cat([x, x], dim=0).view(-1).mean(0, keepdim=True)
        return (d["k"] + self.c[0] + float(self.names["a"]) + z.sum().float() + w + self.t[1],
                s + len(self.hist))


class OptionalAttrs(nn.Module):
    bias: Optional[Tensor]
    limit: Optional[int]

    def __init__(self):
        super().__init__()
        self.bias = torch.tensor([0.5, -0.5, 1.0])
        self.limit = None

    def forward(self, x: Tensor, k: Optional[int] = None) -> Tensor:
        b = self.bias
        if b is not None:
            x = x + b
        lim = self.limit
        if lim is None:
            self.limit = 3
        else:
            self.limit = lim + 1
        if k is not None:
            x = x * k
        lim2 = self.limit
        assert lim2 is not None
        return x * lim2


class Mutation(nn.Module):
    seen: List[float]

    def __init__(self):
        super().__init__()
        self.calls = 0
        self.total = 0.0
        self.seen = []
        self.register_buffer("running", torch.zeros(3))

    def forward(self, x: Tensor) -> Tensor:
        self.calls += 1
        self.total += float(x.sum())
        self.seen.append(self.total)
        self.running = self.running * 0.5 + x.mean(0)
        return self.running * self.calls


class Raising(nn.Module):
    def check(self, x: Tensor) -> Tensor:
        if bool((x < 0).any()):
            raise RuntimeError("negative input")
        return x

    def forward(self, x: Tensor, mode: str) -> Tensor:
        if mode == "sqrt":
            return torch.sqrt(self.check(x))
        elif mode == "log":
            return torch.log(self.check(x) + 1)
        raise ValueError("unknown mode " + mode)


class Exported(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))

    @torch.jit.export
    def project(self, x: Tensor) -> Tensor:
        return x @ self.w

    @torch.jit.export
    def norm(self, x: Tensor) -> float:
        return float(torch.linalg.vector_norm(self.project(x)))

    def forward(self, x: Tensor) -> Tensor:
        return self.project(x) / self.norm(x)


class Functional(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        y = F.relu(x) + F.gelu(x) + F.silu(x)
        y = F.softmax(y, dim=-1) + F.log_softmax(x, dim=0)
        y = F.layer_norm(y, [x.size(-1)])
        return F.normalize(y, dim=1) + F.leaky_relu(x, 0.2) + torch.sigmoid(x)


class Sequential(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 4), nn.Tanh(),
                                 nn.Linear(4, 2), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


class DictIteration(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"x": nn.Linear(3, 2), "y": nn.Linear(3, 2, bias=False)})
        self.weights = {"x": 1.0, "y": -0.5}

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        out: Dict[str, Tensor] = {}
        for name, head in self.heads.items():
            out[name] = head(x) * self.weights[name]
        return out


class Tuples(nn.Module):
    def forward(self, x: Tensor, sizes: List[int]) -> Tuple[Tensor, List[int], Dict[str, float]]:
        parts = torch.split(x, sizes, dim=0)
        shapes: List[int] = []
        stats: Dict[str, float] = {}
        for i, p in enumerate(parts):
            shapes.append(p.size(0))
            stats["part" + str(i)] = float(p.sum())
        a, b = parts[0], parts[-1]
        return torch.cat([b, a]), shapes, stats


class IntMath(nn.Module):
    def forward(self, a: int, b: int) -> Tuple[int, int, int, float, bool]:
        if b == 0:
            return 0, 0, 0, 0.0, False
        q = a // b
        r = a % b
        m = max(a, b) - min(a, b)
        return q, r, m, a / b, (a & 1) == 1


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        inner = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
        self.blocks = nn.ModuleList([nn.Sequential(inner, nn.Linear(3, 3)),
                                     nn.Sequential(nn.Linear(3, 3))])
        self.final = Sub()
        self.final.lin = nn.Linear(3, 3)

    def forward(self, x):
        for b in self.blocks:
            x = x + b(x)
        return self.final(x)


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.proj = nn.Linear(4, 2)

    def forward(self, ids: Tensor) -> Tensor:
        return self.proj(self.emb(ids).mean(1))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.ih = nn.Linear(3, 5)
        self.hh = nn.Linear(5, 5)

    def forward(self, xs: Tensor) -> Tuple[Tensor, List[Tensor]]:
        h = torch.zeros(xs.size(1), 5)
        states: List[Tensor] = []
        for t in range(xs.size(0)):
            h = torch.tanh(self.ih(xs[t]) + self.hh(h))
            states.append(h)
        return h, states


class BreakContinue(nn.Module):
    def forward(self, xs: List[int], stop: int) -> Tuple[int, List[int]]:
        total = 0
        kept: List[int] = []
        for x in xs:
            if x == stop:
                break
            if x % 2 == 0:
                continue
            total += x
            kept.append(x)
        return total, kept


class NormDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(6)
        self.drop = nn.Dropout(0.3)
        self.lin = nn.Linear(6, 6)

    def forward(self, x):
        return self.drop(self.ln(self.lin(x))) + x


class Strings(nn.Module):
    def __init__(self):
        super().__init__()
        self.prefix = "item"

    def forward(self, names: List[str], k: int) -> List[str]:
        out: List[str] = []
        for i, n in enumerate(names):
            if i < k:
                out.append(self.prefix + "_" + n.upper())
            else:
                out.append("{}:{}".format(n, i))
        return out


class Misc(nn.Module):
    """enumerate over a ModuleList, a comprehension, an f-string, assert, warn."""
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2)])
        self.eps = 1e-3

    def forward(self, x: Tensor, flags: List[bool]) -> Tuple[Tensor, List[int], str]:
        idx: List[int] = []
        for i, layer in enumerate(self.layers):
            if flags[i]:
                x = layer(x)
                idx.append(i)
        sq = [j * j for j in idx]
        msg = f"used {len(idx)} layers"
        assert x.dim() == 2, "x must be 2-D"
        y = x.clamp(min=-1.0, max=1.0).abs().max()
        if y.item() > 100:
            warnings.warn("large")
        return x + self.eps, sq, msg

class Mixed(nn.Module):
    """sorted dict keys, tuple slices, tensor slicing and item assignment, math."""
    def forward(self, x: Tensor, d: Dict[str, int],
                t: Tuple[int, int, int]) -> Tuple[List[str], int, Tensor]:
        keys = sorted(d.keys())
        total = 0
        for k in keys:
            total += d[k]
        a, b = t[0], t[1:]
        x2 = x[1:, :2] * b[0]
        x2[0, 0] = 5.0
        x3 = torch.where(x2 > 0, x2, torch.zeros_like(x2))
        x4 = x3.reshape(-1).sort()[0] + torch.arange(x3.numel()).to(x3.dtype)
        return keys, total + a + int(math.floor(2.5)), x4

class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm1d(4, affine=True)
        self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
        self.conv = nn.Conv1d(4, 4, 3, padding=1, groups=2)
        self.pool = nn.AdaptiveMaxPool1d(3)

    def forward(self, x):
        y = self.bn(x) + self.gn(x) + self.inorm(x)
        y = self.conv(self.up(y))
        return self.pool(F.elu(y)), F.avg_pool1d(y, 2)

class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, q, k):
        out, w = self.attn(q, k, k)
        return out, w

class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                           norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class Point(NamedTuple):
    x: Tensor
    n: int


class NamedTuples(nn.Module):
    def forward(self, x: Tensor, n: int) -> Tuple[Point, int]:
        p = Point(x * 2, n)
        x2, k = p
        if p.n > 2:
            p = Point(p.x + x2, k + 1)
        return p, p.n


class Indexing(nn.Module):
    """Boolean masks, None and ellipsis indices, writes through views, in-place ops."""
    def __init__(self):
        super().__init__()
        self.table: Dict[str, List[Tensor]] = {"a": [torch.ones(2)], "b": [torch.zeros(1)]}
        self.proj: Optional[nn.Linear] = None

    def forward(self, x: Tensor, mask: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, int]:
        a = x[mask]
        b = x[:, None, 1:]
        c = x[..., 0].clone()
        c[0] = 10.0
        x.add_(1)
        d = torch.stack([x, x * 2]).sum(0) + torch.tensor([1.0, 2.0, 3.0])
        e = torch.einsum("ij,kj->ik", x, x).t().contiguous()
        f = x.new_zeros((2, 2)).masked_fill(torch.eye(2) > 0, 3.0)
        n = x.shape[0] + x.size(1) + len(self.table["a"])
        return a, b, c + d.sum(), e + f.sum(), n


class StrOps(nn.Module):
    def forward(self, s: str) -> Tuple[List[str], str, bool, int]:
        parts = s.split(",")
        j = "-".join(parts)
        return parts, j.upper().strip(), s.startswith("a"), s.find("b")


class Shapes(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, List[Tensor]]:
        y = x.view(2, -1).permute(1, 0).reshape(-1, 2)
        z = torch.cat([y, y], 1).transpose(0, 1).flatten()
        w = F.pad(x, [1, 1]).unsqueeze(0).squeeze(0)
        return y, z, w.to(torch.float64), torch.chunk(x, 2, dim=1)


class Ctl(nn.Module):
    def forward(self, x: Tensor, n: int) -> Tensor:
        i = 0
        while True:
            i += 1
            if i >= n:
                break
            x = x + i
        for j in range(3):
            if j == 1:
                continue
            x = x * (j + 1)
        return x if n > 2 else -x


@torch.jit.script
class Stats:
    def __init__(self, n: int):
        self.n = n
        self.seen: List[float] = []

    def push(self, v: float) -> int:
        self.seen.append(v)
        self.n += 1
        return self.n


class ScriptedClassUse(nn.Module):
    """An object of a scripted class made and used in forward (prim::CreateObject)."""

    def forward(self, xs: List[float]) -> Tuple[int, int]:
        a = Stats(1)
        for v in xs:
            a.push(v)
        return a.n, len(a.seen)


class GradModeDevices(nn.Module):
    """with torch.no_grad(), torch.jit.is_scripting(), math constants, a long buffer
    mutated in place, a Device attribute, dtype and device arguments, interpolate."""
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.tensor(0, dtype=torch.long))
        self.dev = torch.device("cpu")
        self.items: List[Tensor] = [torch.ones(2), torch.zeros(2)]
        self.map: Dict[str, Tensor] = {"w": torch.full((2,), 0.5)}

    def forward(self, x: Tensor, dims: Optional[List[int]] = None,
                scale: float = 1.0) -> Tuple[Tensor, int, bool, str]:
        with torch.no_grad():
            y = x * math.sqrt(2.0) + math.pi
        if torch.jit.is_scripting():
            y = y + 1
        self.steps += 1
        torch._assert(x.dim() > 0, "need dims")
        if dims is None:
            dims = [0]
        s = y.sum(dims) if x.dtype == torch.float32 else y
        z = torch.ones(x.size(0), dtype=x.dtype, device=x.device) * scale
        z = z + self.items[0].sum() + self.map["w"][0]
        t = torch.arange(4, dtype=torch.float32).to(self.dev).type_as(x)
        u = F.interpolate(x.view(1, 1, -1), scale_factor=2.0, mode="linear", align_corners=True)
        print("shape", x.shape)
        return (s + z.sum() + t.sum() + u.mean(), int(self.steps), x.is_floating_point(),
                str(x.dtype))


class Recurrents(nn.Module):
    """A GRU (batch first), a two-layer bidirectional LSTM and a relu RNN."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 4, batch_first=True)
        self.lstm = nn.LSTM(4, 3, num_layers=2, bidirectional=True)
        self.rnn = nn.RNN(6, 2, nonlinearity="relu")

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        o, h = self.gru(x)
        o2, (h2, c2) = self.lstm(o.transpose(0, 1))
        o3, h3 = self.rnn(o2)
        return o3, h + h3.sum(), h2, c2


class Inner(nn.Module):
    k: Final[Tuple[int, int]]

    def __init__(self):
        super().__init__()
        self.k = (2, 3)
        self.deep = nn.Sequential(nn.Linear(2, 2))
        self.stats = Stats(5)

    def forward(self, x: Tensor) -> Tensor:
        self.stats.push(float(x.sum()))
        return x * self.k[0] + self.k[1]


class Outer(nn.Module):
    """A scripted-class object held as an attribute (from data.pkl, mutated by its
    method), a Final tuple, attribute chains into a Sequential, a None submodule."""
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.proj = None

    def forward(self, x: Tensor, scale: float = 2.0) -> Tuple[Tensor, int]:
        y = self.inner(x) + self.inner.deep[0].weight.sum()
        if self.proj is not None:
            y = self.proj(y)
        return y * scale, self.inner.stats.n


class Division(nn.Module):
    """Saved as format version 4 (aten::div); also written as version 3, whose
    torch.div of integer tensors rounded toward zero, as torch reads it today."""

    def forward(self, a: Tensor, b: Tensor, s: int, f: float) -> Tuple[Tensor, Tensor, Tensor,
                                                                       Tensor]:
        return torch.div(a, b), a / s, torch.div(a.float(), b), a / f


class Fill(nn.Module):
    """Saved as format version 5; also written as version 4, whose torch.full with
    no dtype made a float tensor whatever the fill value."""

    def forward(self, n: int) -> Tuple[Tensor, Tensor, Tensor]:
        return torch.full([2], n), torch.full([2], 1.5), torch.full([2], n, dtype=torch.int32)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(2, stride=1)
        self.gap = nn.AdaptiveAvgPool2d((2, 2))
        self.fc = nn.Linear(16 * 4, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.gap(self.avg(x))
        return self.fc(torch.flatten(x, 1))


class CNNLayers(nn.Module):
    """"same" and dilated grouped convolutions, batch norm without affine, ceil-mode
    pooling, a transposed convolution, adaptive max pooling, bilinear upsampling."""
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 6, 3, padding="same", bias=False), nn.BatchNorm2d(6), nn.Hardswish(),
            nn.Conv2d(6, 6, 3, padding=2, dilation=2, groups=3), nn.BatchNorm2d(6, affine=False),
            nn.LeakyReLU(0.1),
            nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), nn.Dropout2d(0.2),
            nn.ConvTranspose2d(6, 4, 2, stride=2), nn.SiLU(), nn.AdaptiveMaxPool2d(3), nn.GELU(),
            nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
            nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Identity(), nn.Linear(4, 3),
            nn.Softmax(dim=1))
    def forward(self, x):
        return self.features(x)

class MaskedEncoder(nn.Module):
    """A sequence-first encoder layer given an attention mask (float or bool)."""

    def __init__(self):
        super().__init__()
        self.l = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1)

    def forward(self, x, m: Optional[Tensor] = None):
        return self.l(x, src_mask=m)


def _randomize_bn(m: nn.Module) -> nn.Module:
    g = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
            mod.running_var.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
            if mod.affine:
                mod.weight.data.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
                mod.bias.data.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
    return m


def _encoder():
    return nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.1,
                                      batch_first=True)


def _encoder_with(**options):
    return lambda: nn.TransformerEncoderLayer(**options)


def _r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


class TolistIsinstance(nn.Module):
    """What torch serializes as a method of a Tensor (``x.tolist()``, under the
    annotation that gives its type), and ``isinstance`` against a bare ``list``
    and ``tuple``: decided at compile time for a known type, tested when it runs
    for ``Any`` and a Union (refining the Union in the branch)."""

    def forward(self, x: Tensor, a: Any, u: Union[List[int], Tuple[int, int]]
                ) -> Tuple[List[List[float]], List[int], bool, bool, bool, bool, int]:
        rows: List[List[float]] = x.tolist()
        flat: List[int] = x.flatten().long().tolist()
        known = isinstance(rows, list) and not isinstance(flat, tuple)
        if isinstance(u, list):
            n = len(u) + 10
        else:
            n = u[0] + u[1]
        return rows, flat, known, isinstance(a, list), isinstance(a, tuple), \
            isinstance(a, Dict[str, int]), n


# Archives whose version record is rewritten to an older format version after
# saving (torch.jit.save writes the newest one its operators need).
OLD_FORMAT = {"division_v3": 3, "fill_v4": 4}

# Archives of torch.jit.freeze'd modules: weights are constants (constants.pkl,
# CONSTANTS.cN in the code), submodules inlined, batch norm folded into convolutions.
FROZEN = {"frozen_cnn", "frozen_transformer"}

# Archives whose code needs operators another branch brings (objects made by
# the code, grad mode): their tests run once the registry has them.
NEEDS = {"scripted_class": ["prim::CreateObject"],
         "grad_mode_devices": ["prim::CreateObject", "aten::set_grad_enabled"]}

# name -> (module factory, [(method, args)...]) -- calls run in order on one module.
CASES = {
    "containers": (Containers, [("forward", (_r(2, 4),)), ("forward", (_r(2, 4, seed=1),)),
                                ("helper", (torch.full((3,), 50.0),))]),
    "loops": (Loops, [("forward", (_r(2, 3), 4)), ("forward", (_r(2, 3, seed=2), 0))]),
    "optional_attrs": (OptionalAttrs, [("forward", (_r(2, 3), None)),
                                       ("forward", (_r(2, 3, seed=1), 2))]),
    "mutation": (Mutation, [("forward", (_r(4, 3),)), ("forward", (_r(4, 3, seed=1),)),
                            ("forward", (_r(4, 3, seed=2),))]),
    "raising": (Raising, [("forward", (torch.tensor([1.0, 4.0]), "sqrt")),
                          ("forward", (torch.tensor([1.0, 4.0]), "log")),
                          ("forward", (torch.tensor([-1.0, 4.0]), "sqrt")),
                          ("forward", (torch.tensor([1.0]), "cube"))]),
    "exported": (Exported, [("forward", (_r(3, 2),)), ("project", (_r(1, 2),)),
                            ("norm", (_r(2, 2),))]),
    "functional": (Functional, [("forward", (_r(3, 5),))]),
    "sequential": (Sequential, [("forward", (_r(4, 5),))]),
    "dict_iteration": (DictIteration, [("forward", (_r(2, 3),))]),
    "tuples": (Tuples, [("forward", (_r(5, 2), [2, 3])), ("forward", (_r(6, 2), [1, 2, 3]))]),
    "int_math": (IntMath, [("forward", (17, 5)), ("forward", (-7, 2)), ("forward", (3, 0))]),
    "nested": (Nested, [("forward", (_r(2, 3),))]),
    "embed": (Embed, [("forward", (torch.tensor([[1, 2, 3], [4, 5, 9]]),))]),
    "recurrent": (Recurrent, [("forward", (_r(4, 2, 3),))]),
    "break_continue": (BreakContinue, [("forward", ([1, 2, 3, 5, 7, 8], 7)),
                                       ("forward", ([3, 4], 9))]),
    "norm_dropout": (NormDropout, [("forward", (_r(3, 6),))]),
    "strings": (Strings, [("forward", (["ab", "cd", "ef"], 2))]),
    "misc": (Misc, [("forward", (_r(2, 2), [True, False, True]))]),
    "mixed": (Mixed, [("forward", (_r(3, 3), {"b": 2, "a": 1}, (1, 2, 3)))]),
    "normalize": (Normalize, [("forward", (_r(2, 4, 6),))]),
    "attention": (MHA, [("forward", (_r(2, 3, 8), _r(2, 4, 8, seed=1)))]),
    "encoder_stack": (Enc, [("forward", (_r(3, 2, 8),))]),
    "named_tuples": (NamedTuples, [("forward", (_r(2), 3)), ("forward", (_r(2), 1))]),
    "indexing": (Indexing, [("forward", (_r(2, 3), torch.tensor([[True, False, True],
                                                                  [False, True, True]])))]),
    "str_ops": (StrOps, [("forward", ("ab,cd, e ",))]),
    "shapes": (Shapes, [("forward", (_r(2, 4),))]),
    "control_flow": (Ctl, [("forward", (_r(2), 4)), ("forward", (_r(2), 1))]),
    "scripted_class": (ScriptedClassUse, [("forward", ([1.0, 2.5],))]),
    "grad_mode_devices": (GradModeDevices, [("forward", (_r(3), None, 2.0)),
                                            ("forward", (_r(2, 3), [1], 1.0))]),
    "recurrent_layers": (Recurrents, [("forward", (_r(2, 5, 3),))]),
    "object_attributes": (Outer, [("forward", (_r(3, 2),)), ("forward", (_r(3, 2), 0.5))]),
    "division": (Division, [("forward", (torch.tensor([7, -7, 5]), torch.tensor([2, 2, 3]), 2,
                                         2.0))]),
    "division_v3": (Division, [("forward", (torch.tensor([7, -7, 5]), torch.tensor([2, 2, 3]),
                                            2, 2.0))]),
    "cnn_layers": (lambda: _randomize_bn(CNNLayers()), [("forward", (_r(2, 3, 9, 9),))]),
    "encoder_seq_first": (_encoder_with(d_model=8, nhead=2, dim_feedforward=16),
                          [("forward", (_r(5, 2, 8),))]),
    "encoder_gelu_norm_first": (_encoder_with(d_model=8, nhead=4, dim_feedforward=12,
                                              activation="gelu", norm_first=True,
                                              batch_first=True),
                                [("forward", (_r(2, 5, 8),))]),
    "encoder_masks": (MaskedEncoder, [
        ("forward", (_r(5, 2, 8), torch.triu(torch.full((5, 5), float("-inf")), 1))),
        ("forward", (_r(5, 2, 8, seed=1), torch.tril(torch.ones(5, 5)).bool()))]),
    "fill": (Fill, [("forward", (3,))]),
    "fill_v4": (Fill, [("forward", (3,))]),
    "cnn": (lambda: _randomize_bn(SmallCNN()), [("forward", (_r(2, 3, 12, 12),))]),
    "frozen_cnn": (lambda: _randomize_bn(SmallCNN()), [("forward", (_r(2, 3, 12, 12),))]),
    "frozen_transformer": (_encoder, [("forward", (_r(2, 5, 8),))]),
    # Batched input: the fused fast path (eval mode, no input requires a gradient),
    # with a key padding mask too; unbatched input: the composed slow path.
    "tolist_isinstance": (TolistIsinstance, [
        ("forward", (_r(2, 3), [1, 2], [4, 5, 6])),
        ("forward", (_r(1, 2, seed=1), (1, 2), (3, 4))),
        ("forward", (_r(2, 1, seed=2), {"k": 1}, [9])),
        ("forward", (_r(0, 2), 3.5, (7, -8)))]),
    "transformer": (_encoder, [("forward", (_r(2, 5, 8),)),
                               ("forward", (_r(2, 5, 8, seed=1), None,
                                            torch.tensor([[False] * 4 + [True], [False] * 5]))),
                               ("forward", (_r(5, 8, seed=2),))]),
}
