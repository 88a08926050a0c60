def course_server(base):
    """An MCP server with the course's read-only tools; read_file is bound to the folder `base`."""
    folder = Path(base)
    server = MCPServer("course-tools")

    @server.tool(name="read_file")
    def read(path: str) -> str:
        """Read a .md, .txt or .json file of the course's folder by its path inside it (e.g. notes/agent-loop.md)."""
        return read_file(folder, path)

    @server.tool(name="rag_search")
    def search(query: str, k: int = 4) -> str:
        """Search the shop's knowledge base: the best k sections, each with its source."""
        return rag_search(query, k)

    @server.tool(name="calculate")
    def calc(expression: str) -> str:
        """The value of an arithmetic expression (numbers, + - * / **, unary -)."""
        return str(eval(expression))

    return server
