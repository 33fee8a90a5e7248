"""Starts each protocol's built-in demo through its `quorum mcp` tool (issue 54).

Usage: every_protocol.py QUORUM OUT_JSON TOOL=SPEC.yaml...

For each TOOL=SPEC pair, the spec's keys (protocol aside) are the tool's
arguments, moderated by the `accept` policy; the client waits with `status`
until the debate ends and records its `result`.
"""

import asyncio
import json
import os
import sys

import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(quorum, out_path, *pairs):
    params = StdioServerParameters(
        command=quorum, args=["mcp", "--speed", "50"], env=dict(os.environ)
    )
    seen = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            started = {}
            for pair in pairs:
                tool, path = pair.split("=", 1)
                spec = yaml.safe_load(open(path))
                spec.pop("protocol", None)
                spec.pop("moderation", None)
                answer = await session.call_tool(tool, {**spec, "moderator": "accept"})
                assert not answer.is_error, (tool, answer.content)
                started[path] = answer.structured_content["debate"]
            for path, debate in started.items():
                for _ in range(20):
                    status = await session.call_tool(
                        "status", {"debate": debate, "wait_secs": 120}
                    )
                    if status.structured_content["ended"]:
                        break
                result = await session.call_tool("result", {"debate": debate})
                assert not result.is_error, (path, result.content)
                seen[path] = result.structured_content
    json.dump(seen, open(out_path, "w"), indent=1)


asyncio.run(main(*sys.argv[1:]))
