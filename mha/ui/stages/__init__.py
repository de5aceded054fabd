"""One module per stage, named by its id (walk.py); each has render(view), and download(cfg, x, w) when its files
hold more than the attention's trace (exports.Part, or None when the trace is the view). RENDER maps the walk's
stages, in its order, to their render functions; DOWNLOAD the stages with files of their own to theirs."""

from importlib import import_module

from ..walk import STAGES

MODULES = {stage: import_module(f"{__name__}.{stage}") for stage in STAGES}
RENDER = {stage: module.render for stage, module in MODULES.items()}
DOWNLOAD = {stage: module.download for stage, module in MODULES.items() if hasattr(module, "download")}
