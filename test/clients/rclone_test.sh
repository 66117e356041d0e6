#!/usr/bin/env bash
# End-to-end check of JOG with rclone (Debian's package, /usr/bin/rclone).
#
# Configures an S3 remote "jog" through RCLONE_CONFIG_JOG_* environment
# variables, builds a tree of 1,000 files of mixed sizes (0 bytes to 12 MiB;
# with --s3-upload-cutoff 5M --s3-chunk-size 5M the files above 5 MiB go up
# as multipart uploads), and runs copy up, check, copy down + diff -r, lsf,
# size, md5sum, cat, server-side copy (UploadPartCopy), sync, delete and
# purge. The user's rclone config is never read: RCLONE_CONFIG points into
# the temporary directory.
#
# Needs: go, /usr/bin/rclone, python3, curl, cmp, diff. Prints
# "N passed, M failed" and exits non-zero when any check failed.
name=rclone
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rclone_bin=${RCLONE:-/usr/bin/rclone}
need_tools "$rclone_bin" diff

start_jog server

# --- an rclone remote from the environment only --------------------------------
for v in $(env | grep -o '^RCLONE_[A-Z0-9_]*' || true); do unset "$v"; done
# aws-sdk-go (inside rclone) fails every request when AWS_CA_BUNDLE is set and
# the endpoint is plain HTTP ("LoadCustomCABundleError").
unset AWS_CA_BUNDLE AWS_PROFILE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
export RCLONE_CONFIG=$tmp/rclone.conf
: >"$RCLONE_CONFIG"
export RCLONE_CONFIG_JOG_TYPE=s3
export RCLONE_CONFIG_JOG_PROVIDER=Other
export RCLONE_CONFIG_JOG_ENDPOINT=$jog_endpoint
export RCLONE_CONFIG_JOG_ACCESS_KEY_ID=$access_key
export RCLONE_CONFIG_JOG_SECRET_ACCESS_KEY=$secret_key
export RCLONE_CONFIG_JOG_REGION=$region
export RCLONE_CONFIG_JOG_FORCE_PATH_STYLE=true
rc() { "$rclone_bin" --s3-upload-cutoff 5M --s3-chunk-size 5M --transfers 8 --checkers 16 \
	--retries 1 --low-level-retries 2 "$@"; }

echo "rclone: $("$rclone_bin" version | sed -n 1p)"

# --- a tree of 1,000 files of mixed sizes --------------------------------------
src=$tmp/src
python3 - "$src" <<'EOF'
import os, random, sys
root = sys.argv[1]
r = random.Random(20240601)
dirs = ["", "a", "a/b", "a/b/c", "with space", "ünï", "deep/1/2/3/4", "x+y=z", "many"]
MiB = 1 << 20
sizes = []
for i in range(1000):
    if i < 6:
        sizes.append(6 * MiB + i * 1234567)        # 6..12 MiB: multipart
    elif i < 10:
        sizes.append(r.randint(1 * MiB, 4 * MiB))  # below the 5 MiB cutoff
    elif i < 60:
        sizes.append(r.randint(100_000, 900_000))
    elif i < 80:
        sizes.append(0)
    else:
        sizes.append(r.randint(1, 20_000))
for i, n in enumerate(sizes):
    d = os.path.join(root, dirs[i % len(dirs)])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "file %04d (%d).bin" % (i, n)), "wb") as f:
        f.write(r.randbytes(n))
EOF
nfiles=$(find "$src" -type f | wc -l)
nbytes=$(find "$src" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
check "made a tree of 1000 files ($((nbytes >> 20)) MiB, 6 of 6..12 MiB)" test "$nfiles" -eq 1000

# --- up, check, down ---------------------------------------------------------------
check "rclone mkdir jog:rclone-test" rc mkdir jog:rclone-test
check "rclone lsd jog: lists the bucket" rc lsd jog:
expect_grep "lsd names rclone-test" ' rclone-test$'
timed "rclone copy up (1000 files)" rc copy "$src" jog:rclone-test/tree
check "rclone check (sizes and MD5s, multipart files included)" rc check "$src" jog:rclone-test/tree
check "rclone check --download (compares the bytes)" rc check --download "$src" jog:rclone-test/tree
check "rclone lsf -R --files-only" rc lsf -R --files-only jog:rclone-test/tree
expect_lines "lsf lists 1000 files" 1000
check "rclone size --json" rc size --json jog:rclone-test/tree
expect_grep "size reports 1000 objects and $nbytes bytes" "\"count\":1000,\"bytes\":$nbytes"
big=$(cd "$src/ünï" && echo "file 0005 ("*)  # 12 MiB, 3 parts of 5 MiB
check "rclone md5sum of a multipart file" rc md5sum "jog:rclone-test/tree/ünï/$big"
expect_grep "md5sum matches the local file" "^$(md5_of "$src/ünï/$big")  "
check "rclone lsf --dump headers of a multipart file" rc lsf --dump headers "jog:rclone-test/tree/ünï/$big"
if ((last_ok)) && grep -q '^Etag: "[0-9a-f]\{32\}-3"' "$err"; then
	ok "the 12 MiB file went up as a 3-part multipart upload (ETag ...-3)"
else
	bad "the 12 MiB file went up as a 3-part multipart upload (ETag ...-3)"
fi
check "rclone cat of a multipart file is byte-exact" \
	bash -c '"$1" cat "$2" | cmp - "$3"' _ "$rclone_bin" "jog:rclone-test/tree/ünï/$big" "$src/ünï/$big"
timed "rclone copy down (1000 files)" rc copy jog:rclone-test/tree "$tmp/down"
check "downloaded tree is identical (diff -r)" diff -r "$src" "$tmp/down"
check "second rclone copy up transfers nothing" rc copy -v "$src" jog:rclone-test/tree
if ((last_ok)) && ! grep -q 'Copied (new)' "$err"; then ok "second copy copied no files"; else bad "second copy copied files"; fi

# --- server-side copy: --s3-copy-cutoff 5M makes the big files UploadPartCopy ---
timed "rclone server-side copy (CopyObject; UploadPartCopy above 5 MiB)" \
	rc copy --s3-copy-cutoff 5M jog:rclone-test/tree jog:rclone-test/copy
check "rclone check of the server-side copy against the source tree" rc check "$src" jog:rclone-test/copy
check "rclone check --download of the server-side copy" rc check --download "$src" jog:rclone-test/copy
check "rclone purge of the copy" rc purge jog:rclone-test/copy

# --- sync: changes, additions and deletions ----------------------------------------
python3 - "$src" <<'EOF'
import glob, os, sys
root = sys.argv[1]
with open(os.path.join(root, "a", "added.bin"), "wb") as f:
    f.write(os.urandom(7 << 20))                    # new, multipart
with open(glob.glob(os.path.join(root, "file 0009 *"))[0], "r+b") as f:
    f.seek(10)
    f.write(b"changed in place")                    # same size, new content
os.remove(glob.glob(os.path.join(root, "a", "file 0010 *"))[0])
EOF
check "rclone sync of the changed tree" rc sync "$src" jog:rclone-test/tree
check "rclone check after sync" rc check "$src" jog:rclone-test/tree
check "rclone sync down" rc sync jog:rclone-test/tree "$tmp/down"
check "synced-down tree is identical (diff -r)" diff -r "$src" "$tmp/down"

# --- copyto, delete, purge -------------------------------------------------------
check "rclone copyto a single file" rc copyto "$src/ünï/$big" "jog:rclone-test/single/copy.bin"
check "rclone copyto back is byte-exact" rc copyto "jog:rclone-test/single/copy.bin" "$tmp/single.bin"
check "single file round trip (cmp)" cmp "$src/ünï/$big" "$tmp/single.bin"
check "rclone delete --include '*(0).bin'" rc delete --include '*(0).bin' jog:rclone-test/tree
check "rclone lsf after delete" rc lsf -R --files-only jog:rclone-test/tree
expect_no_grep "no empty files left" '(0)\.bin$'
check "rclone purge of the bucket" rc purge jog:rclone-test
check "rclone lsd jog: after purge" rc lsd jog:
expect_no_grep "the bucket is gone" ' rclone-test$'
finish
