"""A real MCP server made with the official SDK (`mcp.server.mcpserver.MCPServer`), over stdio.

Chapter 18 starts it as a subprocess and drives it with the hand-written client. Its logs go
to stderr: stdout carries JSON-RPC messages only.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("course-demo")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()


@server.tool()
def fail(reason: str) -> str:
    """Always fails, with the reason given."""
    raise ValueError(f"fail was asked to fail: {reason}")


if __name__ == "__main__":
    server.run()  # stdio is the default transport
