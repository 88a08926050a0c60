"""Raw JSON-RPC messages to an SDK server object in this process, and its raw replies.

    replies = run_async(lambda: exchange_async(server, [request, notification, request]))

`mcp.Client(server)` hides the wire behind typed results; this shows it: the messages go over the
same in-memory transport `Client(server)` uses, and the replies come back as the dicts a client
would read off a pipe. The SDK's server speaks both eras on it, chosen by the first request: the
2026-07-28 stateless form (each request carries `_meta`) or the legacy `initialize` handshake.
"""

from __future__ import annotations

from mcp.client._memory import InMemoryTransport  # the transport Client(server) uses (SDK 2.3)
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import jsonrpc_message_adapter

from workbook.mcp_servers import run_async

MAX_MESSAGES = 100


def exchange(server, messages: list[dict], timeout: float = 120.0) -> list[dict]:
    """`exchange_async` from a cell: the responses to the requests among `messages`, in order."""
    return run_async(lambda: exchange_async(server, messages), timeout)


async def exchange_async(server, messages: list[dict]) -> list[dict]:
    """Send `messages` in order; the response to each request (a message with an id), in order.

    A notification (no id) gets no response. Messages the server sends on its own (log
    notifications) are skipped, as a client skips them."""
    if type(messages) is not list or not all(type(m) is dict for m in messages):
        raise TypeError("messages must be a list of JSON-RPC messages (dicts)")
    if len(messages) > MAX_MESSAGES:
        raise ValueError(f"at most {MAX_MESSAGES} messages in one exchange")
    wire = [SessionMessage(jsonrpc_message_adapter.validate_python(m)) for m in messages]
    replies: list[dict] = []
    async with InMemoryTransport(server) as (read, write):
        for message, item in zip(messages, wire, strict=True):
            await write.send(item)
            if "id" not in message:
                continue
            while True:
                got = await read.receive()
                if isinstance(got, Exception):
                    raise got
                reply = got.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                if "method" not in reply and reply.get("id") == message["id"]:
                    replies.append(reply)
                    break
    return replies
