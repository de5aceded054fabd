"""One module per stage, named by its id (walk.py); each has render(view). RENDER maps the walk's stages, in its
order, to their render functions."""

from importlib import import_module

from ..walk import STAGES

RENDER = {stage: import_module(f"{__name__}.{stage}").render for stage in STAGES}
