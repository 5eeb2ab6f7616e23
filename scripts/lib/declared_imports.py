#!/usr/bin/env python3
"""Fails when a target imports a module that Package.swift does not declare for it (SwiftPM
builds such code only by accident of build order). Reads Package.swift as text: each
.target/.executableTarget/.testTarget block's quoted names and products, against the
imports of the files under its folder."""
import glob
import re
import sys

SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin", "Dispatch",
          "Synchronization", "Testing", "XCTest", "_Concurrency"}
ALIASES = {"httpTypes": {"HTTPTypes"}, "logging": {"Logging"}, "subprocess": {"Subprocess", "SystemPackage"}}


def targets(manifest):
    blocks = re.split(r"\n\s+\.(?:target|executableTarget|testTarget|systemLibrary)\(", manifest)[1:]
    for block in blocks:
        name = re.search(r'name: "([^"]+)"', block)
        if not name:
            continue
        declared = set(re.findall(r'"([A-Za-z0-9_]+)"', block.split("swiftSettings")[0]))
        for alias, modules in ALIASES.items():
            if re.search(r"\b%s\b" % alias, block):
                declared |= modules
        path = re.search(r'path: "([^"]+)"', block)
        folder = path.group(1) if path else ("Tests/" if name.group(1).endswith("Tests") else "Sources/") + name.group(1)
        yield name.group(1), declared, folder


def main():
    problems = []
    for name, declared, folder in targets(open("Package.swift").read()):
        imported = set()
        for path in glob.glob(folder + "/**/*.swift", recursive=True):
            for line in open(path):
                found = re.match(r"\s*(?:@\w+\s+)*(?:public |package |internal )?import\s+(?:(?:struct|class|enum|func|protocol)\s+)?(\w+)", line)
                if found:
                    imported.add(found.group(1))
        missing = imported - declared - SYSTEM - {name}
        if missing:
            problems.append(f"{name} imports {', '.join(sorted(missing))} without declaring it in Package.swift")
    for problem in problems:
        print(problem, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
