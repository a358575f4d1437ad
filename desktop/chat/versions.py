"""The versions Edit and Regenerate keep, and making an earlier one the current one again.

A version is a group of messages: a prompt of the person's and everything that followed it
in the chat when a newer version replaced it. Every message of a group points
(`superseded_by`) at the prompt of the version that replaced it, so a current prompt's
versions form a chain: the group pointing at it, the group pointing at that group's
prompt, and so on, the most recently current first.

Making an earlier version current again re-links that chain: the chosen group points at
nothing (it is the conversation again), the group that was current points at it, and the
others keep their order behind. Nothing is deleted, so every version stays reachable.
"""

from __future__ import annotations

from collections import defaultdict

from desktop.system.store import StoredMessage

Group = list[StoredMessage]


def replaced_groups(messages: list[StoredMessage]) -> dict[int, Group]:
    """The replaced messages by the prompt that replaced them, each group oldest first."""
    groups: dict[int, Group] = defaultdict(list)
    for message in sorted(messages, key=lambda m: m.id):
        if message.superseded_by is not None:
            groups[message.superseded_by].append(message)
    return dict(groups)


def chain(groups: dict[int, Group], prompt_id: int) -> list[Group]:
    """The versions `prompt_id` replaced, the most recently current first."""
    found: list[Group] = []
    seen = {prompt_id}
    group = groups.get(prompt_id)
    while group and group[0].id not in seen:  # a group's first message is its prompt
        found.append(group)
        seen.add(group[0].id)
        group = groups.get(group[0].id)
    return found


def use_version(messages: list[StoredMessage], version_id: int) -> dict[int, int | None] | None:
    """What each message's `superseded_by` becomes when the earlier version whose prompt is
    `version_id` becomes current again; None when it is not an earlier version of a prompt
    in the conversation now. `messages` are all of a chat's, replaced ones included."""
    by_id = {message.id: message for message in messages}
    target = by_id.get(version_id)
    if target is None or target.superseded_by is None or target.role != "user":
        return None
    # Up the chain to the prompt that is current now.
    current = target
    for _ in range(len(messages)):
        if current.superseded_by is None:
            break
        above = by_id.get(current.superseded_by)
        if above is None:
            return None
        current = above
    if current.superseded_by is not None:
        return None
    groups = replaced_groups(messages)
    earlier = chain(groups, current.id)
    chosen = next((group for group in earlier if group[0].id == version_id), None)
    if chosen is None:
        return None  # a version of a message that is itself no longer current
    now: Group = [m for m in messages if m.superseded_by is None and m.id >= current.id]
    order = [chosen, now, *(group for group in earlier if group is not chosen)]
    links: dict[int, int | None] = {}
    for index, group in enumerate(order):
        points_at = order[index - 1][0].id if index else None
        for message in group:
            if message.superseded_by != points_at:
                links[message.id] = points_at
    return links
