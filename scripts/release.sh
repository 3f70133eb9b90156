#!/usr/bin/env bash
# Build crashsim's release archives into dist/: for Linux on amd64 and
# arm64, crashsim_VERSION_linux_ARCH.tar.gz with the binary, LICENSE,
# README.md and CHANGELOG.md, and SHA256SUMS over them. The release
# workflow (.github/workflows/release.yml) runs it on a tag.
#
# usage: scripts/release.sh [VERSION]
#
# VERSION names the archives (default: the tag at HEAD, else "dev"). The
# binaries are built from the checkout as it is: with a tag vX.Y.Z at
# HEAD and a clean tree, Go stamps vX.Y.Z into them, and `crashsim
# --version` prints it, as after `go install ...@vX.Y.Z`.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-$(git describe --tags --exact-match 2>/dev/null || echo dev)}
rm -rf dist
mkdir dist
for arch in amd64 arm64; do
	name=crashsim_${version#v}_linux_$arch
	mkdir "dist/$name"
	# No cgo: one static binary that runs on any Linux of that
	# architecture. -buildvcs=true even where GOFLAGS turns it off: the
	# version and revision come from it.
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -buildvcs=true -o "dist/$name/crashsim" ./cmd/crashsim
	cp LICENSE README.md CHANGELOG.md "dist/$name/"
	tar -C dist -czf "dist/$name.tar.gz" "$name"
	rm -r "dist/${name:?}"
done
(cd dist && sha256sum -- *.tar.gz >SHA256SUMS)
ls -l dist
