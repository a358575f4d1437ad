"""The base of Deskhand's data shapes: a pydantic model whose validator is built on first use.

Deskhand has about a hundred models. Built when their modules load, they cost the window a
tenth of its start, though most are first used once a tool runs; built on first use, each costs
the same, where it is needed.
"""

from pydantic import BaseModel, ConfigDict


class Data(BaseModel):
    model_config = ConfigDict(defer_build=True)
