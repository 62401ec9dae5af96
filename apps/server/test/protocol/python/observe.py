"""The official Python MCP client (`mcp`) against one endpoint: lists the tools, calls the ones it
is given with the same answers to the server's requests as the TypeScript clients, and prints what
it observed as one JSON line (tool names, each call's text or error, the requests it was asked).

Usage: observe.py <url> <legacy|auto> <prefix> <tool-json>...
"""

import asyncio
import json
import sys

import mcp_types as types
from mcp import Client

ROOTS = [types.Root(uri="file:///srv/project", name="project")]


async def main() -> None:
    url, mode, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
    calls = [json.loads(arg) for arg in sys.argv[4:]]
    seen: list[str] = []

    async def sampling(_context, params):
        seen.append("sampling/createMessage")
        last = params.messages[-1].content
        text = getattr(last, "text", "")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"sampled: {text}"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def elicitation(_context, params):
        seen.append("elicitation/create")
        if getattr(params, "mode", None) == "url":
            return types.ElicitResult(action="accept")
        schema = getattr(params, "requested_schema", None) or {}
        properties = schema.get("properties", {})
        content = {}
        for key in schema.get("required", []):
            field = properties.get(key, {})
            choices = field.get("oneOf") or field.get("anyOf")
            content[key] = field.get("default") or (choices[0]["const"] if choices else "Ada")
        if "name" in properties:
            content["name"] = "Ada"
        if "check" in properties:
            content["check"] = True
        return types.ElicitResult(action="accept", content=content)

    async def roots(_context):
        seen.append("roots/list")
        return types.ListRootsResult(roots=ROOTS)

    out: dict = {"tools": [], "calls": [], "seen": seen}
    async with Client(
        url,
        mode=mode,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
    ) as client:
        out["protocolVersion"] = client.protocol_version
        listed = await client.list_tools()
        out["tools"] = sorted(
            tool.name[len(prefix):] for tool in listed.tools if tool.name.startswith(prefix)
        )
        for call in calls:
            try:
                result = await client.call_tool(prefix + call["name"], call.get("arguments", {}))
                text = "\n".join(getattr(block, "text", "") for block in result.content)
                out["calls"].append({"name": call["name"], "text": text, "error": bool(result.is_error)})
            except Exception as error:  # noqa: BLE001 - the observation is the error itself
                out["calls"].append({"name": call["name"], "thrown": str(error)})
    print(json.dumps(out))


asyncio.run(main())
