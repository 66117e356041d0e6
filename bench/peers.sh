# Peers for bench/compare.sh and bench/warp.sh (sourced): the modules they
# are installed from, and how each server is started and stopped on
# 127.0.0.1:$PORT. The sourcing script sets BIN, PORT, AK, SK, JOG_FSYNC and
# log; jog-base is built by compare.sh's build_base, jog-pg's database comes
# from bench/pg.sh.
declare -A MODULE=(
  [versitygw]=github.com/versity/versitygw/cmd/versitygw@v1.8.0
  [rclone]=github.com/rclone/rclone@v1.75.1
  [minio]=github.com/minio/minio@latest
)

# install NAME: go install the peer into $BIN unless it is there already.
install() {
  [ "$1" = jog-base ] && { build_base; return; }
  [ "$1" = jog-pg ] && return 0 # jog itself, over PostgreSQL
  local name=$1 mod=${MODULE[$1]}
  if [ -x "$BIN/$name" ] && [ "$(cat "$BIN/$name.module" 2>/dev/null)" = "$mod" ]; then
    return 0
  fi
  log "installing $mod"
  GOBIN=$BIN go install "$mod" && echo "$mod" >"$BIN/$name.module"
}

SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}

# start NAME DIR: start a server on 127.0.0.1:$PORT over DIR, wait until it
# accepts connections.
start() {
  local name=$1 dir=$2 addr=127.0.0.1:$PORT
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    log "port $PORT is already in use"
    return 1
  fi
  local meta=
  [ "$name" = jog-pg ] && meta=$(pg_url "jb$(date +%s%N)")
  # exec: $! is then the server itself, which stop_server can kill.
  (
    case $name in
      jog | jog-base) exec "$BIN/$name" server --addr "$addr" --data-dir "$dir" --access-key "$AK" --secret-key "$SK" --fsync "$JOG_FSYNC" ;;
      jog-pg) exec "$BIN/jog" server --addr "$addr" --data-dir "$dir" --meta "$meta" --access-key "$AK" --secret-key "$SK" --fsync "$JOG_FSYNC" ;;
      versitygw) exec "$BIN/versitygw" --quiet --access "$AK" --secret "$SK" --port "$addr" posix "$dir" ;;
      rclone) exec "$BIN/rclone" serve s3 --quiet --addr "$addr" --auth-key "$AK,$SK" "$dir" ;;
      minio) MINIO_ROOT_USER=$AK MINIO_ROOT_PASSWORD=$SK exec "$BIN/minio" server --quiet \
        --address "$addr" --console-address "127.0.0.1:$((PORT + 1))" "$dir" ;;
    esac
  ) >"$dir.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 240); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
      sleep 1 # let it finish starting behind the socket
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.5
  done
  log "$name did not start; see $dir.log"
  stop_server
  return 1
}
