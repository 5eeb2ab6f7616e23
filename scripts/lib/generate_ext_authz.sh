#!/usr/bin/env bash
# Regenerates Sources/MultiAuthExtAuthzGRPC/ExtAuthz.pb.swift from its .proto. Not part of the
# build: the generated file is committed (swift-protobuf's build plugin would add minutes to
# every cold build). Needs protoc (Debian's protobuf-compiler) and protoc-gen-swift built from
# the swift-protobuf version Package.swift names:
#   git clone /opt/swift-packages/apple/swift-protobuf.git sp && git -C sp checkout 1.39.0
#   swift build -c release --package-path sp --product protoc-gen-swift
#   PROTOC_GEN_SWIFT=sp/.build/release/protoc-gen-swift scripts/lib/generate_ext_authz.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
module=Sources/MultiAuthExtAuthzGRPC
protoc --plugin=protoc-gen-swift="${PROTOC_GEN_SWIFT:?the path of protoc-gen-swift}" \
    --swift_opt=Visibility=Package --swift_opt=UseAccessLevelOnImports=true --swift_out="$module" -I "$module/Protos" "$module/Protos/ext_authz.proto"
mv "$module/ext_authz.pb.swift" "$module/ExtAuthz.pb.swift"
