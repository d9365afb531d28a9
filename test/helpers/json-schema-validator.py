"""Validates JSON instances against the published contract (contract/*.schema.json) with the
Python `jsonschema` library, as an order system written in Python does: one process, one JSON
line in per instance, {"id", "file", "instance"}, one JSON line out, {"id", "valid",
"validWithFormats", "errors"}. `valid` uses the library's defaults (formats are not checked);
`validWithFormats` also checks the formats the library knows.

Usage: python json-schema-validator.py <contract dir>
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator


def main() -> None:
    directory = pathlib.Path(sys.argv[1])
    plain = {}
    formats = {}
    for path in directory.glob("*.schema.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        plain[path.name] = Draft202012Validator(schema)
        formats[path.name] = Draft202012Validator(
            schema, format_checker=Draft202012Validator.FORMAT_CHECKER
        )
    print(json.dumps({"ready": sorted(plain)}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        name, instance = request["file"], request["instance"]
        errors = [e.message for e in plain[name].iter_errors(instance)]
        answer = {
            "id": request["id"],
            "valid": not errors,
            "validWithFormats": formats[name].is_valid(instance),
            "errors": errors[:3],
        }
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
