"""The model's client: the AsyncAnthropic client built from settings, and the models it offers.

The request it sends is built from a chat's history in `desktop.chat.request`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.system.settings.model import Settings
from tools.data import Data

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic


class ClientConfig(Data, frozen=True):
    """Everything a client is built from; equal configs can share one client."""

    api_key: str
    base_url: str | None
    max_retries: int

    @classmethod
    def of(cls, settings: Settings, api_key: str) -> ClientConfig:
        return cls(
            api_key=api_key,
            base_url=settings.effective_base_url(),
            max_retries=settings.model.max_retries,
        )


def client_from(config: ClientConfig) -> AsyncAnthropic:
    # The SDK loads when a client is first built, never before the window shows.
    import httpx2
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(
        api_key=config.api_key,
        base_url=config.base_url,
        max_retries=config.max_retries,
        timeout=httpx2.Timeout(600.0, connect=10.0),
    )


def make_client(settings: Settings, api_key: str) -> AsyncAnthropic:
    return client_from(ClientConfig.of(settings, api_key))


async def list_models(client: AsyncAnthropic) -> list[str]:
    """Model ids the server offers, newest first (the models API lists them that way)."""
    return [model.id async for model in client.models.list(limit=100)]
