#!/usr/bin/env python3
"""Makes the TorchScript models that the examples, the benchmarks and the README use.

Every model has random weights from a fixed seed: nothing is downloaded, and the
same command makes the same files. Needs Debian's python3-torch and
python3-torchvision; run it with /usr/bin/python3 (another python3 on PATH may
lack them):

    /usr/bin/python3 examples/models/make_models.py OUT_DIR [NAME ...]

NAME is any of the models below (default: all). Each is saved, in eval mode,
as OUT_DIR/NAME.pt:

    resnet18            torchvision resnet18, input 1x3x224x224 f32, output 1x1000
    transformer_block   one encoder layer (d_model 256, 4 heads, ffn 1024),
                        input 1x128x256 f32, output 1x128x256
    mlp                 256 -> 512 -> 512 -> 10 with ReLU, input 1x256 f32, output 1x10
"""
import argparse
import pathlib
import sys
import warnings

import torch


def resnet18() -> torch.nn.Module:
    import torchvision  # here, so that the other models need only torch
    return torchvision.models.resnet18(weights=None)


def transformer_block() -> torch.nn.Module:
    return torch.nn.TransformerEncoderLayer(
        d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0, batch_first=True)


def mlp() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 10))


MODELS = {
    "resnet18": (resnet18, (1, 3, 224, 224)),
    "transformer_block": (transformer_block, (1, 128, 256)),
    "mlp": (mlp, (1, 256)),
}


# torch 1.13 warns about its own TransformerEncoderLayer when scripting it.
warnings.filterwarnings("ignore", message="'batch_first' was found in ScriptModule constants")


def parse_model_args(description: str, out_help: str) -> argparse.Namespace:
    """OUT_DIR (made) and the NAMEs of MODELS asked for (all by default)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("out_dir", type=pathlib.Path, help=out_help)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"models: {', '.join(MODELS)} (default: all)")
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    args.names = args.names or list(MODELS)
    return args


def main() -> int:
    args = parse_model_args(__doc__.splitlines()[0], "folder to write NAME.pt into")
    for name in args.names:
        make, input_shape = MODELS[name]
        torch.manual_seed(0)
        model = torch.jit.script(make().eval())
        with torch.no_grad():  # fail here, not in a benchmark, if the model cannot run
            output = model(torch.randn(input_shape))
        path = args.out_dir / f"{name}.pt"
        model.save(str(path))
        print(f"{path}: input {'x'.join(map(str, input_shape))} f32, "
              f"output {'x'.join(map(str, output.shape))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
