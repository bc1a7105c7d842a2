# roomspec and the tcpdump that feeds it, as the images of the Kubernetes
# DaemonSet in deploy/kubernetes:
#
#   docker build --target roomspec -t ghcr.io/roomspec/roomspec:latest .
#   docker build --target tcpdump  -t ghcr.io/roomspec/roomspec-tcpdump:latest .
#
# roomspec is one static binary (CGO_ENABLED=0: gopacket is used in pure Go,
# AF_PACKET included) on distroless, as a non-root user; tcpdump is Debian's.
# deploy/deploy_test.go checks this file.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/roomspec ./cmd/roomspec

FROM gcr.io/distroless/static-debian12:nonroot AS roomspec
COPY --from=build /out/roomspec /usr/local/bin/roomspec
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/roomspec"]
CMD ["-help"]

FROM debian:bookworm-slim AS tcpdump
RUN apt-get update \
 && apt-get install -y --no-install-recommends tcpdump \
 && rm -rf /var/lib/apt/lists/*
ENTRYPOINT ["tcpdump"]
