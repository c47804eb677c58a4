#!/usr/bin/env bash
# ophelp: the event list with availability, one event described, XML, and
# its exit statuses.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"

expect 0 "TIMER [available, timer mode]" "$OPHELP"
LIST=$OUT
grep -q "Unit masks:" <<<"$LIST" || fail "no unit masks listed"
# software events other than the timer can be opened by anyone allowed
grep -qF "PERF_COUNT_SW_PAGE_FAULTS [perf, available]" <<<"$LIST" || fail "page-faults not available"
grep -qE '^[0-9]+ events, [0-9]+ available here$' <<<"$OUT" || fail "no event count: $(tail -1 <<<"$OUT")"
# the PMU-less VM case: hardware events are listed but marked
if grep -qF "No usable hardware PMU" <<<"$OUT"; then
	grep -qF "PERF_COUNT_HW_CPU_CYCLES [perf, unavailable here]" <<<"$OUT" ||
		fail "cycles not listed as unavailable"
	expect 0 "not usable here: event CPU_CLK_UNHALTED needs a hardware PMU" "$OPHELP" CPU_CLK_UNHALTED
	"$OPHELP" -a | grep -q "unavailable here" && fail "ophelp -a lists unavailable events"
else
	grep -qF "PERF_COUNT_HW_CPU_CYCLES [perf, available]" <<<"$OUT" || fail "cycles not available with a PMU"
fi

expect 0 "min count: 10000, default: 1000000" "$OPHELP" task-clock
expect 0 "TIMER [available, timer mode]: (min count: 10000, default: 1000000)" "$OPHELP" cpu-clock
expect 1 "ophelp: unknown event NOPE" "$OPHELP" NOPE
expect 2 "ophelp: bad event specification" "$OPHELP" 'a/b'
expect 2 "ophelp: one event at a time" "$OPHELP" TIMER cycles
expect 2 "--bogus: unknown option" "$OPHELP" --bogus

# XML: well formed, every event there, TIMER available
"$OPHELP" -X > "$E2E_TMP/events.xml"
if command -v xmllint >/dev/null; then
	xmllint --noout "$E2E_TMP/events.xml" || fail "ophelp -X is not well-formed XML"
fi
n_text=$("$OPHELP" | sed -n 's/^\([0-9]*\) events,.*/\1/p')
n_xml=$(grep -c '<event ' "$E2E_TMP/events.xml")
[ "$n_text" = "$n_xml" ] || fail "text lists $n_text events, XML $n_xml"
grep -qF '<event event_name="TIMER" group="software" available="1"' "$E2E_TMP/events.xml" ||
	fail "no available TIMER in the XML"

# -d (OProfile's --get-default-event): the spec "default" stands for here,
# the PMU's cycles or the timer, and the timer when the PMU probe's hook
# says there is no PMU
def=$("$OPHELP" -d) || fail "ophelp -d failed"
# (into files: grep -q on a pipe would end ophelp with SIGPIPE)
"$OPHELP" >"$E2E_TMP/list" || fail "ophelp failed"
OPSAMPLER_PMU=off "$OPHELP" >"$E2E_TMP/list-off" || fail "ophelp under OPSAMPLER_PMU=off failed"
if grep -q "^A hardware PMU is usable" "$E2E_TMP/list"; then
	[ "$def" = "CPU_CLK_UNHALTED:100000:0:1:1" ] || fail "ophelp -d with a PMU: $def"
else
	[ "$def" = "TIMER:1000000:0:1:1" ] || fail "ophelp -d without a PMU: $def"
fi
[ "$(OPSAMPLER_PMU=off "$OPHELP" -d)" = "TIMER:1000000:0:1:1" ] || fail "ophelp -d under OPSAMPLER_PMU=off"
grep -q "^No usable hardware PMU" "$E2E_TMP/list-off" || fail "OPSAMPLER_PMU=off: ophelp sees a PMU"
expect 2 "--get-default-event takes no event" "$OPHELP" -d cycles

# opcontrol --list-events is ophelp
expect 0 "TIMER [available, timer mode]" "$OPCONTROL" --list-events
echo "ophelp: passed"
