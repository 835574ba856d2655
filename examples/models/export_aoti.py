#!/usr/bin/env python3
"""Exports the example models as AOTInductor packages (.pt2), the module format "aoti".

Each model is exported with torch.export and compiled by AOTInductor
(torch._inductor.aoti_compile_and_package) for the CUDA GPU of this machine;
the same model, with the same weights, is also saved as TorchScript (traced),
so that both formats can be run and compared. Needs PyTorch >= 2.6 with CUDA
(the pip wheel; Debian's 1.13 has no AOTInductor) and a GPU. Compiling takes
from seconds (mlp) to a minute or two (resnet18) on first use; Inductor
caches what it compiled under /tmp/torchinductor_$USER.

    python3 examples/models/export_aoti.py OUT_DIR [NAME ...]

NAME is any of the models of make_models.py (default: all; resnet18 needs
torchvision). Each is written as OUT_DIR/NAME.pt2 and OUT_DIR/NAME.pt. The
mlp's batch dimension is dynamic (1 to 1024); the others keep the shapes of
make_models.py.

The packages carry AOTInductor's input checks (AOTI_RUNTIME_CHECK_INPUTS=1 is
set while compiling); set AOTI_RUNTIME_CHECK_INPUTS=1 where they run to have
inputs of the wrong dtype or shape refused instead of read.
"""
import os
import pathlib
import sys

os.environ.setdefault("AOTI_RUNTIME_CHECK_INPUTS", "1")  # read when the package is compiled

import torch  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_models import MODELS, parse_model_args  # noqa: E402

# Dimensions left dynamic per model: {input index: {dim: (name, min, max)}}.
DYNAMIC = {"mlp": {0: {0: ("batch", 1, 1024)}}}


def export_package(model, example_inputs, path, dynamic=None):
    """torch.export `model` (eval, on the inputs' device) and compile it with
    AOTInductor into the package `path`; returns the path."""
    dynamic_shapes = None
    if dynamic:
        dynamic_shapes = tuple(
            {dim: torch.export.Dim(name, min=lo, max=hi) for dim, (name, lo, hi) in dynamic.get(i, {}).items()}
            or None
            for i in range(len(example_inputs)))
    with torch.no_grad():
        program = torch.export.export(model, tuple(example_inputs), dynamic_shapes=dynamic_shapes)
        return torch._inductor.aoti_compile_and_package(program, package_path=str(path))


def save_torchscript(model, example_inputs, path):
    """The same model traced to TorchScript at `path`."""
    with torch.no_grad():
        torch.jit.trace(model, tuple(example_inputs)).save(str(path))


def main() -> int:
    args = parse_model_args(__doc__.splitlines()[0], "folder to write NAME.pt2 and NAME.pt into")
    major, minor = (int(v) for v in torch.__version__.split(".")[:2])
    if (major, minor) < (2, 6) or not torch.cuda.is_available():
        print(f"export_aoti.py: needs PyTorch >= 2.6 with a CUDA GPU; this is torch {torch.__version__}, "
              f"CUDA {'available' if torch.cuda.is_available() else 'not available'}", file=sys.stderr)
        return 2
    for name in args.names:
        make, input_shape = MODELS[name]
        torch.manual_seed(0)
        try:
            model = make().eval().cuda()
        except ImportError as e:  # resnet18 without torchvision
            print(f"{name}: skipped ({e})")
            continue
        shape = list(input_shape)
        if name in DYNAMIC:
            shape[0] = 2  # an example batch that is neither 0 nor 1, which export specializes
        x = torch.randn(shape, device="cuda")
        package = export_package(model, [x], args.out_dir / f"{name}.pt2", DYNAMIC.get(name))
        save_torchscript(model, [x], args.out_dir / f"{name}.pt")
        print(f"{package}: input {'x'.join(map(str, shape))} f32"
              f"{' (batch dynamic)' if name in DYNAMIC else ''}; TorchScript twin {name}.pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
