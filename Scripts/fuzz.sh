#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer: builds Fuzz/ (a package of its own) with AddressSanitizer and
# runs each campaign for SECONDS (default 60). Campaigns: graph files as YAML and as strict JSON
# (parsed and validated), plugin catalogs (read as a plugin's are), the PNG, TIFF, JPEG, WebP, GIF and
# HEIF (HEIC and AVIF) decoders (header, then every pixel, reading past damage as the default failOn does),
# and `tessera serve`'s request parser ("serve": raw requests in random chunkings, then WebSocket frames).
#
#     Scripts/fuzz.sh [SECONDS] [CAMPAIGN...]
#
# Seeds: the repository's own graphs and codec fixtures (for WebP, GIF and HEIF, the files of that format
# among the fixtures, the corpus of damaged files and the hostile ones), and Fuzz/Corpus/. What a campaign learns is
# kept in out/fuzz/CAMPAIGN/ for the next run; a crash is written to out/fuzz/crashes/ and makes the
# script exit 1 (add it to a broken-file or broken-graph table, then fix it). Prints, per campaign, the
# executions, the coverage libFuzzer counted and the corpus size.
#
# FUZZ_TIMEOUT (seconds, default 10) is how long one input may take before it counts as a finding. It is
# wall-clock time: on a machine busy with builds, a low-priority campaign can be starved for longer than
# that by an input that takes milliseconds, so long runs beside other work raise it.
#
# FUZZ_QUICK=1 (what `make test` sets for its brief check) builds the Swift without optimization (80 s
# instead of 160 s on 2 cores; the C decoders stay optimized) and runs two campaigns at a time, one per
# core: a brief campaign mostly replays its seeds and what earlier runs learned, and spends more on the
# build than on fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
campaigns=("$@")
[ ${#campaigns[@]} -eq 0 ] && campaigns=(graph-yaml graph-json catalog png tiff jpeg webp gif heif serve)

flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -use-ld=lld)
quick=${FUZZ_QUICK:-0}
[ "$quick" = 1 ] && flags+=(-Xswiftc -Onone)
# Only the binaries the campaigns run are built (FuzzServe alone needs none of Tessera's other modules).
products=()
for campaign in "${campaigns[@]}"; do
    case $campaign in
        graph-yaml | graph-json | catalog) products+=(FuzzGraph) ;;
        png | tiff | jpeg | webp | gif | heif) products+=(FuzzImage) ;;
        serve) products+=(FuzzServe) ;;
        *) echo "unknown campaign '$campaign' (graph-yaml, graph-json, catalog, png, tiff, jpeg, webp, gif, heif, serve)" >&2; exit 2 ;;
    esac
done
for product in $(printf '%s\n' "${products[@]}" | sort -u); do
    (cd Fuzz && swift build "${flags[@]}" --product "$product" >/dev/null)
done
bin=$(cd Fuzz && swift build -c release --show-bin-path)
fixtures=Tests/TesseraIOTests/Fixtures
mkdir -p out/fuzz/crashes
status=0
# Runs one campaign; prints its line, and returns 1 when it found a crash.
fuzz_campaign() {
    local campaign=$1 target kind seeds patterns pattern log runs cov
    case $campaign in
        graph-yaml) target=FuzzGraph; kind=yaml; seeds=(Graphs Fuzz/Corpus/graph-yaml Tests/TesseraEngineTests/SchemaRejects) ;;
        graph-json) target=FuzzGraph; kind=json; seeds=(Fuzz/Corpus/graph-json) ;;
        catalog) target=FuzzGraph; kind=catalog; seeds=(Fuzz/Corpus/catalog) ;;
        png | tiff | jpeg) target=FuzzImage; kind=; seeds=("$fixtures/$campaign" "$fixtures/bombs") ;;
        webp | gif | heif)
            # The fixtures of the format, wherever they are, gathered into one seed folder.
            target=FuzzImage; kind=; seeds=("out/fuzz/seeds-$campaign")
            case $campaign in webp) patterns=('*.webp') ;; gif) patterns=('*.gif') ;; heif) patterns=('*.heic' '*.avif') ;; esac
            rm -rf "out/fuzz/seeds-$campaign" && mkdir -p "out/fuzz/seeds-$campaign"
            for pattern in "${patterns[@]}"; do
                find "$fixtures/formats" "$fixtures/corpus" "$fixtures/hostile" -name "$pattern" -size -64k \
                    -exec cp {} "out/fuzz/seeds-$campaign/" \;
            done ;;
        serve) target=FuzzServe; kind=; seeds=(Fuzz/Corpus/serve) ;;
    esac
    local found=0
    mkdir -p "out/fuzz/$campaign"
    log="out/fuzz/$campaign.log"
    # -max_len: seeds and findings stay small enough to run fast; -rss_limit_mb: a decoder that asks
    # for more than its budget allows is a finding too.
    if ! TESSERA_FUZZ_INPUT=$kind LSAN_OPTIONS=suppressions=$PWD/Scripts/lsan-suppressions.txt "$bin/$target" "out/fuzz/$campaign" "${seeds[@]}" -max_total_time="$seconds" \
        -max_len=65536 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="out/fuzz/crashes/$campaign-" >"$log" 2>&1; then
        echo "$campaign: FOUND A CRASH (see $log and out/fuzz/crashes/)"
        grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5
        found=1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    echo "$campaign: $runs executions in ${seconds} s, $cov, corpus $(ls "out/fuzz/$campaign" | wc -l) files"
    return $found
}

if [ "$quick" = 1 ]; then
    # Two at a time; each prints its line when it ends.
    pids=()
    for campaign in "${campaigns[@]}"; do
        if [ ${#pids[@]} -ge 2 ]; then
            wait "${pids[0]}" || status=1
            pids=("${pids[@]:1}")
        fi
        fuzz_campaign "$campaign" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
else
    for campaign in "${campaigns[@]}"; do fuzz_campaign "$campaign" || status=1; done
fi
exit $status
