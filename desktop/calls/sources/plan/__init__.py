"""The person's task plan, in one place: Claude proposes it with `update_plan` (`proposal`: the
tool and its site patterns), the person approves it, and while it lasts every call of the chat
is checked against it and the chat's tabs are held to its sites (`book`). The browser's network
guard applies that hold (tools/browser/network/guard.py); the gate asks the book."""
