# Sourced by the bench scripts that measure one local JOG server
# (versioning.sh, lifecycle.sh, qos.sh, cp.sh); run from the repository's root.
#
# start_jog [server flags...] builds jog into $bin and starts `jog server`
# on $ADDR with the bench keys (exported for the AWS CLI), a fresh data
# directory $data and its output in $log; $pid is the server's. At exit
# the server is stopped and $data, $log and the binary removed.
start_jog() {
	export AWS_ACCESS_KEY_ID=benchkey AWS_SECRET_ACCESS_KEY=benchsecret AWS_DEFAULT_REGION=us-east-1
	bin=$(mktemp -d)/jog
	go build -o "$bin" ./cmd/jog
	data=$(mktemp -d)
	log=$data.log
	"$bin" server --addr "$ADDR" --data-dir "$data" --access-key "$AWS_ACCESS_KEY_ID" \
		--secret-key "$AWS_SECRET_ACCESS_KEY" "$@" >"$log" 2>&1 &
	pid=$!
	trap 'kill $pid; wait $pid 2>/dev/null; rm -rf "$data" "$log" "${bin%/jog}"' EXIT
	for _ in $(seq 100); do curl -s -o /dev/null "http://$ADDR/" && break; sleep 0.1; done
}

# aws_s3 runs an AWS CLI s3api command against the server, quietly.
aws_s3() { aws --endpoint-url "http://$ADDR" s3api "$@" >/dev/null; }

# json_array FILE RECORD... writes the records (JSON objects, one per
# argument) to FILE as a JSON array, one record per line.
json_array() {
	local out=$1 i n
	shift
	n=$#
	{
		echo "["
		i=0
		for r in "$@"; do
			i=$((i + 1))
			if [ "$i" -lt "$n" ]; then echo "  $r,"; else echo "  $r"; fi
		done
		echo "]"
	} >"$out"
}
