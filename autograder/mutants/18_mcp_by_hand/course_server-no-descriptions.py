def course_server(base):
    """An MCP server with the course's read-only tools; read_file is bound to the folder `base`."""
    folder = Path(base)
    server = MCPServer("course-tools")

    @server.tool(name="read_file")
    def read(path: str) -> str:
        return read_file(folder, path)

    @server.tool(name="rag_search")
    def search(query: str, k: int = 4) -> str:
        return rag_search(query, k)

    @server.tool(name="calculate")
    def calc(expression: str) -> str:
        return str(calculate(expression))

    return server
