"""A debate `quorum mcp` drives while a person moderates it (issue 54).

Usage: person.py QUORUM SPEC.yaml STARTED_JSON OUT_JSON

Starts the decision review SPEC describes with moderator `person`, writes
what the tool returned to STARTED_JSON (the Rust test then runs
`quorum attach` on its folder in a pty and rules there), follows it with
`status` until it ends, and writes the statuses that waited on the person
and the `result` to OUT_JSON.
"""

import asyncio
import json
import os
import sys

import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(quorum, spec_path, started_path, out_path):
    spec = yaml.safe_load(open(spec_path))
    spec.pop("protocol", None)
    params = StdioServerParameters(
        command=quorum, args=["mcp", "--speed", "50"], env=dict(os.environ)
    )
    seen = {"waiting": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            started = await session.call_tool("decision_review", {**spec, "moderator": "person"})
            assert not started.is_error, started.content
            debate = started.structured_content["debate"]
            with open(started_path + ".part", "w") as part:
                json.dump(started.structured_content, part)
            os.rename(started_path + ".part", started_path)
            for _ in range(60):
                status = await session.call_tool(
                    "status", {"debate": debate, "wait_secs": 30}
                )
                state = status.structured_content
                if state["ended"]:
                    break
                if state["waiting_for"] == "person":
                    seen["waiting"].append(status.content[0].text)
                    refused = await session.call_tool(
                        "rule",
                        {"debate": debate, "rulings": [{"item": state["items"][0]["id"], "decision": "accept"}]},
                    )
                    seen["caller_refused"] = refused.content[0].text
                    # The person rules in `attach`: wait for them.
                    await asyncio.sleep(0.5)
            result = await session.call_tool("result", {"debate": debate})
            seen["result"] = result.structured_content
    json.dump(seen, open(out_path, "w"), indent=1)


asyncio.run(main(*sys.argv[1:]))
