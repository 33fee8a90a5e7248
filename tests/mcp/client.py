"""Drives `quorum mcp` with the official MCP Python SDK (issue 54).

Usage: client.py QUORUM SPEC.yaml OUT_JSON

Starts the server over stdio in the current folder, lists its tools, starts
the decision review SPEC describes with moderator `caller`, follows it with
`status` (wait_secs, progress notifications) until items wait, rules on each
item through `rule` (the first one rejected, the others accepted), waits for
the end, reads `result`, `list` and a resource, tries bad input; then
leaves a second debate waiting on its rulings and has a new server resume
it. It writes what it saw as JSON for the Rust test to check.
"""

import asyncio
import json
import os
import sys

import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(quorum, spec_path, out_path):
    spec = yaml.safe_load(open(spec_path))
    spec.pop("protocol", None)
    seen = {"progress": [], "rounds": []}
    # The server gets this process's environment (the test's isolated
    # configuration folders), not the SDK's short default list.
    params = StdioServerParameters(
        command=quorum, args=["mcp", "--speed", "50"], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            seen["tools"] = sorted(tool.name for tool in tools.tools)

            started = await session.call_tool(
                "decision_review", {**spec, "moderator": "caller"}
            )
            assert not started.is_error, started.content
            debate = started.structured_content["debate"]
            seen["started"] = started.structured_content

            async def progress(done, total, message):
                seen["progress"].append(message)

            for _ in range(40):
                status = await session.call_tool(
                    "status",
                    {"debate": debate, "wait_secs": 60},
                    progress_callback=progress,
                )
                state = status.structured_content
                if state["ended"]:
                    break
                if state["waiting_for"] == "caller":
                    items = [item["id"] for item in state["items"]]
                    # A ruling on an item that is not waiting is refused,
                    # and nothing is sent.
                    wrong = await session.call_tool(
                        "rule",
                        {"debate": debate, "rulings": [{"item": "nope", "decision": "accept"}]},
                    )
                    seen.setdefault("wrong_item", wrong.content[0].text)
                    rulings = [
                        {"item": item, "decision": "reject" if i == 0 else "accept",
                         "note": "ruled by the caller"}
                        for i, item in enumerate(items)
                    ]
                    ruled = await session.call_tool(
                        "rule", {"debate": debate, "rulings": rulings}
                    )
                    assert not ruled.is_error, ruled.content
                    seen["rounds"].append(rulings)
            result = await session.call_tool("result", {"debate": debate})
            seen["result"] = result.structured_content
            seen["result_error"] = result.is_error
            listed = await session.call_tool("list", {})
            seen["list"] = [d["debate"] for d in listed.structured_content["debates"]]
            resources = await session.list_resources()
            uris = [str(r.uri) for r in resources.resources]
            seen["resources"] = uris
            summary = [u for u in uris if u.endswith(f"{debate}/summary.md")]
            if summary:
                read = await session.read_resource(summary[0])
                seen["summary_md"] = read.contents[0].text
            bad = await session.call_tool(
                "decision_review", {"topic": "x", "critique": 7, "moderator": "caller"}
            )
            seen["bad_input"] = {"error": bad.is_error, "text": bad.content[0].text}
            outside = await session.call_tool(
                "decision_review",
                {"topic": "x", "context": ["../../etc/passwd"], "moderator": "accept"},
            )
            seen["outside"] = {"error": outside.is_error, "text": outside.content[0].text}

    # The client leaves while a debate waits on its rulings: the server
    # stops it there, resumable; a new server's `resume` tool continues it
    # from its journal with another moderator, to its end.
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            started = await session.call_tool(
                "decision_review", {**spec, "moderator": "caller"}
            )
            left = started.structured_content["debate"]
            for _ in range(10):
                status = await session.call_tool(
                    "status", {"debate": left, "wait_secs": 60}
                )
                if status.structured_content["waiting_for"] == "caller":
                    break
            seen["left_waiting"] = status.structured_content["waiting_for"]
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            not_here = await session.call_tool("status", {"debate": left})
            seen["not_here"] = not_here.content[0].text
            resumed = await session.call_tool(
                "resume", {"debate": left, "moderator": "accept"}
            )
            assert not resumed.is_error, resumed.content
            for _ in range(10):
                status = await session.call_tool(
                    "status", {"debate": left, "wait_secs": 60}
                )
                if status.structured_content["ended"]:
                    break
            result = await session.call_tool("result", {"debate": left})
            seen["resumed_result"] = result.structured_content
            again = await session.call_tool("resume", {"debate": left})
            seen["resume_ended"] = again.content[0].text
    json.dump(seen, open(out_path, "w"), indent=1)


asyncio.run(main(*sys.argv[1:]))
