# Shared helpers for the real-client scripts in test/clients (sourced, not run).
#
# Sourcing this file: creates $tmp (removed on exit), builds jog into
# $tmp/jog, and defines
#   start_jog NAME [--tls] [--fsync always|never] [-- SERVER-FLAGS...]
#       starts a jog server on a free loopback port over $tmp/NAME.data and
#       sets jog_endpoint (http[s]://127.0.0.1:port), jog_port and jog_pid;
#       --tls serves HTTPS with a fresh self-signed certificate
#       ($tmp/tls/cert.pem); flags after -- go to `jog server` as they are.
#   start_replicated_pair
#       starts two servers, dst and then src, src with one bucket
#       replication target "dr" serving any bucket of dst (its keys, the
#       servers' own, given in JOG_REPLICATION_DR_*), and sets
#       dst_endpoint and src_endpoint.
#   kms_create NAME ID...
#       creates keys of the built-in KMS in server NAME's data dir, as an
#       operator does (`jog admin kms create`), beside the running server.
#   the check bookkeeping used by test/cli/aws_cli_test.sh: ok, bad, check,
#   check_fails, eventually, expect_grep, expect_no_grep, expect_lines,
#   expect_empty, skip, and finish (prints "N passed, M failed" and returns non-zero on
#   failure); expect DESC PYTHON-EXPR (the last check's JSON stdout as d).
#   aws_cli_env
#       an isolated AWS CLI configuration under $tmp (the user's ~/.aws is
#       never read), signing with the servers' root keys, JSON output,
#       path-style addressing.
# Every server started is stopped on exit; when the script fails, the tail
# of each server's log is printed.
#
# The caller sets `name` (used in messages) before sourcing.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jog-${name:-client}-test.XXXXXX")
jog_pids=()
jog_logs=()

# The fixed credentials every server in these scripts uses.
access_key=JOGCLIENTTESTKEY0001
secret_key=jog-client-test-secret-000000000000000
region=us-east-1

_jog_cleanup() {
	local rc=$?
	local i
	for i in "${!jog_pids[@]}"; do
		if kill -0 "${jog_pids[$i]}" 2>/dev/null; then
			kill "${jog_pids[$i]}" 2>/dev/null || true
			wait "${jog_pids[$i]}" 2>/dev/null || true
		fi
	done
	if ((rc != 0)); then
		for i in "${!jog_logs[@]}"; do
			if [[ -s ${jog_logs[$i]} ]]; then
				echo "--- ${jog_logs[$i]##*/} (last 40 lines) ---" >&2
				tail -n 40 "${jog_logs[$i]}" >&2 || true
			fi
		done
	fi
	rm -rf "$tmp"
	exit "$rc"
}
trap _jog_cleanup EXIT

need_tools() {
	local tool
	for tool in "$@"; do
		if [[ $tool == /* ]]; then
			[[ -x $tool ]] || { echo "$name: $tool not installed" >&2; exit 2; }
		else
			command -v "$tool" >/dev/null || { echo "$name: $tool not found on PATH" >&2; exit 2; }
		fi
	done
}
need_tools go python3 curl cmp

(cd "$root" && go build -o "$tmp/jog" ./cmd/jog)

free_port() {
	python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}

start_jog() {
	local sname=$1
	shift
	local tls="" fsync=never
	while (($#)); do
		case $1 in
		--tls) tls=1 ;;
		--fsync) fsync=$2; shift ;;
		--) shift; break ;;
		*) echo "start_jog: unknown option $1" >&2; return 2 ;;
		esac
		shift
	done
	local args=("$@") scheme=http curlk=()
	if [[ -n $tls ]]; then
		if [[ ! -f $tmp/tls/cert.pem ]]; then
			mkdir -p "$tmp/tls"
			# Go ships a self-signed certificate generator; no openssl needed.
			(cd "$tmp/tls" && go run "$(go env GOROOT)/src/crypto/tls/generate_cert.go" \
				--host 127.0.0.1,localhost --ecdsa-curve P256 --ca >/dev/null 2>&1)
		fi
		args+=(--tls-cert "$tmp/tls/cert.pem" --tls-key "$tmp/tls/key.pem")
		scheme=https
		curlk=(-k)
	fi
	jog_port=$(free_port)
	jog_endpoint="$scheme://127.0.0.1:$jog_port"
	"$tmp/jog" server --addr "127.0.0.1:$jog_port" --data-dir "$tmp/$sname.data" \
		--access-key "$access_key" --secret-key "$secret_key" --region "$region" --console=false \
		--fsync "$fsync" "${args[@]}" >"$tmp/$sname.out" 2>"$tmp/$sname.log" &
	jog_pid=$!
	jog_pids+=("$jog_pid")
	jog_logs+=("$tmp/$sname.log")
	local deadline=$((SECONDS + 15))
	until curl -sf "${curlk[@]}" "$jog_endpoint/health/ready" >/dev/null; do
		if ! kill -0 "$jog_pid" 2>/dev/null; then
			echo "$name: jog server $sname exited before it was ready" >&2
			exit 1
		fi
		if ((SECONDS >= deadline)); then
			echo "$name: jog server $sname not ready on $jog_endpoint within 15 s" >&2
			exit 1
		fi
		sleep 0.05
	done
}

start_replicated_pair() {
	start_jog dst
	dst_endpoint=$jog_endpoint
	JOG_REPLICATION_DR_ACCESS_KEY=$access_key JOG_REPLICATION_DR_SECRET_KEY=$secret_key \
		start_jog src -- --replication-target "dr=$dst_endpoint"
	src_endpoint=$jog_endpoint
}

kms_create() {
	local dir=$tmp/$1.data id
	shift
	for id in "$@"; do
		"$tmp/jog" admin kms create --data-dir "$dir" "$id" >/dev/null
	done
}

# --- check bookkeeping --------------------------------------------------------
pass=0
fail=0
skipped=0
out=$tmp/cmd.out
err=$tmp/cmd.err

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL $1" >&2
	local f
	for f in "$out" "$err"; do
		[[ -s $f ]] && tail -n 30 "$f" | sed 's/^/     | /' >&2
	done
	return 0
}
skip() { skipped=$((skipped + 1)); echo "skip $1"; }
# check DESC CMD...: CMD must succeed; its stdout/stderr land in $out/$err.
# last_ok says whether it did: the expect_* checks of a failed command fail.
last_ok=1
check() {
	local desc=$1
	shift
	if "$@" >"$out" 2>"$err"; then last_ok=1; ok "$desc"; else last_ok=0; bad "$desc"; fi
}
# check_fails DESC PATTERN CMD...: CMD must fail with PATTERN in its output.
check_fails() {
	local desc=$1 pattern=$2
	shift 2
	if "$@" >"$out" 2>"$err"; then
		bad "$desc (succeeded, want failure with $pattern)"
	elif grep -q -- "$pattern" "$err" "$out"; then
		ok "$desc"
	else
		bad "$desc (failed without $pattern in its output)"
	fi
}
# eventually DESC SECONDS CMD...: like check, but CMD is run again every
# 0.2 s until it succeeds or SECONDS have passed.
eventually() {
	local desc=$1 limit=$2 deadline=$((SECONDS + $2))
	shift 2
	until "$@" >"$out" 2>"$err"; do
		if ((SECONDS >= deadline)); then
			last_ok=0
			bad "$desc (still failing after $limit s)"
			return 0
		fi
		sleep 0.2
	done
	last_ok=1
	ok "$desc"
}
# expect_grep DESC GREP-ARGS...: the last check's stdout matches.
expect_grep() {
	local desc=$1
	shift
	if ((last_ok)) && grep -q "$@" "$out"; then ok "$desc"; else bad "$desc"; fi
}
# expect_no_grep DESC GREP-ARGS...: the last check's stdout does not match.
expect_no_grep() {
	local desc=$1
	shift
	if ((last_ok)) && ! grep -q "$@" "$out"; then ok "$desc"; else bad "$desc"; fi
}
# expect_lines DESC N: the last check printed exactly N lines.
expect_lines() {
	local n
	n=$(wc -l <"$out")
	if ((last_ok && n == $2)); then ok "$1"; else bad "$1 (want $2 lines, got $n)"; fi
}
# expect_empty DESC: the last check printed nothing on stdout.
expect_empty() {
	if ((last_ok)) && [[ ! -s $out ]]; then ok "$1"; else bad "$1"; fi
}
# timed DESC CMD...: like check, and reports how long CMD took.
timed() {
	local desc=$1 start=$SECONDS
	shift
	if "$@" >"$out" 2>"$err"; then
		last_ok=1
		ok "$desc ($((SECONDS - start)) s)"
	else
		last_ok=0
		bad "$desc ($((SECONDS - start)) s)"
	fi
}
# expect DESC PYTHON-EXPR: evaluates EXPR with d = the JSON in $out.
expect() {
	local desc=$1 expr=$2
	if ((last_ok)) && python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if ($expr) else 1)" "$out" 2>>"$err"; then ok "$desc"; else bad "$desc"; fi
}
finish() {
	if ((skipped > 0)); then
		echo "$pass passed, $fail failed, $skipped skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	((fail == 0))
}

md5_of() { python3 -c 'import hashlib,sys
h=hashlib.md5()
with open(sys.argv[1],"rb") as f:
    for b in iter(lambda: f.read(1<<20), b""): h.update(b)
print(h.hexdigest())' "$1"; }

aws_cli_env() {
	unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_REGION \
		AWS_REQUEST_CHECKSUM_CALCULATION AWS_RESPONSE_CHECKSUM_VALIDATION AWS_CA_BUNDLE
	export AWS_CONFIG_FILE=$tmp/aws-config
	export AWS_SHARED_CREDENTIALS_FILE=$tmp/aws-credentials
	export AWS_ACCESS_KEY_ID=$access_key
	export AWS_SECRET_ACCESS_KEY=$secret_key
	export AWS_DEFAULT_REGION=$region
	export AWS_DEFAULT_OUTPUT=json
	export AWS_PAGER=""
	export AWS_EC2_METADATA_DISABLED=true
	: >"$AWS_CONFIG_FILE"
	: >"$AWS_SHARED_CREDENTIALS_FILE"
	aws configure set default.s3.addressing_style path
}
