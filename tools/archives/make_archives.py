"""Write the archive fixtures: each module of archive_programs.CASES scripted in eval
mode and saved by torch.jit.save to tests/fixtures/archives/<name>.pt, with torch's
results of its calls (run in order on the loaded archive) in <name>.json; the CNN
also to examples/small_cnn.pt for the README; the archives named in OLD_FORMAT get an
older format version record, and torch's results are those of that version; those
named in FROZEN are torch.jit.freeze'd first.

    python tools/archives/make_archives.py          # torch installed
    python tools/archives/make_archives.py NAME...  # only those (the others unchanged)
"""

import json
import os
import shutil
import sys
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "archives")
# The README's saved-model example runs this one.
EXAMPLE = ("cnn", os.path.join(ROOT, "examples", "small_cnn.pt"))

from archive_programs import CASES, FROZEN, NEEDS, OLD_FORMAT  # noqa: E402


def encode(value):
    """A value as JSON: tensors as {"tensor": values, "dtype": name, "shape": [...]}."""
    if isinstance(value, torch.Tensor):
        return {"tensor": value.detach().reshape(-1).tolist(), "shape": list(value.shape),
                "dtype": str(value.dtype).replace("torch.", "")}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, float) and value != value:
        return {"float": "nan"}
    return value


def set_version(path: str, version: int) -> None:
    """Rewrite the archive's version record: torch then reads its code with that
    version's operator semantics (its upgraders)."""
    with zipfile.ZipFile(path) as src:
        parts = [(info, src.read(info.filename)) for info in src.infolist()]
    with zipfile.ZipFile(path, "w") as dst:
        for info, data in parts:
            if info.filename.endswith("/version") or info.filename.endswith("/.data/version"):
                data = f"{version}\n".encode()
            dst.writestr(info, data)


def main(only=()) -> None:
    os.makedirs(OUT, exist_ok=True)
    unknown = set(only) - set(CASES)
    if unknown:
        sys.exit(f"no such case: {', '.join(sorted(unknown))}")
    for name, (factory, calls) in CASES.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        path = os.path.join(OUT, f"{name}.pt")
        scripted = torch.jit.script(factory().eval())
        if name in FROZEN:
            scripted = torch.jit.freeze(scripted)
        torch.jit.save(scripted, path)
        if name in OLD_FORMAT:
            set_version(path, OLD_FORMAT[name])
        loaded = torch.jit.load(path)
        records = []
        with torch.no_grad():
            for method, args in calls:
                rec = {"method": method, "args": encode(list(args))}
                try:
                    rec["result"] = encode(getattr(loaded, method)(*args))
                except Exception as exc:  # torch's message for the raising paths
                    rec["error"] = str(exc).strip().splitlines()[-1]
                records.append(rec)
        with open(os.path.join(OUT, f"{name}.json"), "w") as f:
            json.dump({"needs": NEEDS.get(name, []), "calls": records}, f, indent=1)
            f.write("\n")
        print(f"{name}: {os.path.getsize(path)} bytes")
        if name == EXAMPLE[0]:
            shutil.copyfile(path, EXAMPLE[1])


if __name__ == "__main__":
    main(sys.argv[1:])
