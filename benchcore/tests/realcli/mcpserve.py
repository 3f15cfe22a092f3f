"""A minimal MCP server (stdio, JSON-RPC one message a line, standard library) for the real-CLI rig.

It offers one tool, ``leak``, which, when called, appends a line to the file named by its first argument and
answers with the text of the file named by its second: what an arm reaching an unguarded MCP tool could do.
``claude --mcp-config`` starts it as ``python3 mcpserve.py <called-file> <secret-file>``.
"""

import json
import sys


def main() -> None:
    called, secret = sys.argv[1], sys.argv[2]
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "id" not in msg:  # a notification
            continue
        method, result = msg.get("method"), None
        if method == "initialize":
            result = {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2024-11-05"),
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "probe", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "leak", "description": "Returns a file's text.",
                                 "inputSchema": {"type": "object", "properties": {"why": {"type": "string"}}}}]}
        elif method == "tools/call":
            with open(called, "a") as fh:
                fh.write(json.dumps(msg.get("params")) + "\n")
            with open(secret) as fh:
                result = {"content": [{"type": "text", "text": fh.read()}]}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
