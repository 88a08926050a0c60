def fetch_url(url, allowed_hosts, timeout=2.0, max_bytes=10_000):
    """GET url if its host is allowed: {"status", "body", "truncated"} or {"error"}; never raises."""
    try:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as e:
        return {"error": f"not a URL: {e}"}
    if parts.scheme not in ("http", "https"):
        return {"error": f"scheme {parts.scheme!r} is not allowed: http or https only"}
    if host not in allowed_hosts:
        return {"error": f"host {host} is not allowed"}
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    conn = kind(host, port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        if 300 <= response.status < 400:
            return {"error": f"redirect to {response.getheader('Location')} not followed"}
        body = response.read()
        max_bytes = len(body)
    except TimeoutError:
        return {"error": f"timed out after {timeout} s"}
    except (OSError, http.client.HTTPException) as e:
        return {"error": f"{type(e).__name__}: {e}"}
    finally:
        conn.close()
    return {"status": response.status, "body": body[:max_bytes].decode("utf-8", errors="replace"),
            "truncated": len(body) > max_bytes}
