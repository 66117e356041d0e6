# syntax=docker/dockerfile:1
#
# JOG as a container: a static binary on distroless/static, run as a
# non-root user, data in the /data volume, S3 on port 9000, the web console
# on port 9001 (an origin of its own: ADR 0025).
#
#   make image        # docker build stamped with git describe, commit, date
#   docker run -d -p 9000:9000 -p 9001:9001 -v jog-data:/data \
#     -e JOG_ACCESS_KEY=... -e JOG_SECRET_KEY=... jog:<version>
#
# Settings come from JOG_* variables, flags after `server`, or a TOML
# config file mounted read-only and named by JOG_CONFIG (docs/OPERATIONS.md).
#
# The build runs one command, `make static`: the step `make release` runs
# for every platform, so a green `make release` checks this build too.

FROM --platform=$BUILDPLATFORM golang:1.26.8 AS build
ARG TARGETOS TARGETARCH
ARG VERSION=dev
ARG COMMIT=
ARG DATE=
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH make static OUT=/out/jog VERSION=$VERSION COMMIT=$COMMIT DATE=$DATE
# An empty directory to become /data, owned by the runtime user.
WORKDIR /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/jog /usr/local/bin/jog
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV JOG_DATA_DIR=/data JOG_ADDR=:9000
VOLUME ["/data"]
EXPOSE 9000 9001
# jog health reads the same JOG_* variables (and JOG_CONFIG) as the server:
# it probes /health/ready at JOG_ADDR, over https with JOG_TLS_CERT.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/jog", "health"]
# SIGTERM drains in-flight requests (up to 5 minutes) before exiting:
# give `docker stop` a longer --time (-t 330) for long uploads.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/jog"]
CMD ["server"]
