# mk/run.mk: the rules of a run, included by results/run-NNN/run.mk (made by
# cko-init), which sets the variables below. Run it in the run folder:
#     make -f run.mk ITER=7      # iterations 1..7 after the initial kernel
# Every step is a file target: an interrupted run resumes where it stopped,
# ITER=9 afterwards runs two more, `make -n` shows the plan. A negative
# verdict (exit 1) is recorded and the run goes on; exit 2 (bad input) and
# 3 (environment) stop make. GPU steps take a GPU from the pool through
# cko-lock, so `make -j` runs compiles and proposals in parallel while
# timings never share a GPU.

ifneq ($(abspath $(dir $(firstword $(MAKEFILE_LIST)))),$(CURDIR))
$(error run.mk runs in its own folder: make -C $(dir $(firstword $(MAKEFILE_LIST))) -f run.mk)
endif

SHELL       := /bin/sh
.SUFFIXES:
.DELETE_ON_ERROR:
MAKEFLAGS   += --no-builtin-rules

# Defaults for what run.mk may leave out.
ITER        ?= 7
CANDIDATES  ?= 1
PROPOSER    ?= tune
STRATEGY    ?= auto
SEED        ?= 1
HIDDEN_SEED ?= 1
TIMEOUT     ?= 10
COMPILE_TIMEOUT ?= 60
COMPILE_MEMORY ?= 4096
SANDBOX     ?= on
# 1: every candidate's outputs as .npy (cko-run --keep-outputs); 0: only
# the failing ones, the rest compared on the device (out/SET/NAME.json).
KEEP_OUTPUTS ?= 0
WARMUP      ?= 10
TIMED       ?= 100
# The reference is timed only for speedup_vs_reference, and is slow by
# design (sgemm's: ~30 ms a launch): fewer launches (the candidates, the
# initial kernel and the vendor baseline keep WARMUP and TIMED).
REF_WARMUP  ?= 2
REF_TIMED   ?= 20
USE_NSIGHT  ?= 0
SANITIZE    ?= 0
GPUS        ?= 1
LOCK_DIR    ?=
LAUNCHER    ?=
SPACE       ?=
SIGNATURE   ?= workload/signature.json
CASES       ?= workload/cases.json
REFERENCE   ?= workload/reference.cu
REFERENCE_LAUNCH ?= workload/reference-launch.json
INITIAL     ?= workload/initial.cu
INITIAL_LAUNCH ?= workload/launch.json
# The budget (docs/model.md): an iteration is stopped once every performance
# case reaches SOL_STOP of its speed-of-light time, or after PATIENCE
# iterations in a row that each improved the best by less than MIN_GAIN
# (0 turns a rule off; PATIENCE is 5 for the tuner, whose gains come in
# jumps after flat iterations, 3 for a model). STOP=off runs the iterations
# not yet made anyway.
SOL_STOP    ?= 0.9
PATIENCE    ?= $(if $(filter tune,$(PROPOSER)),5,3)
MIN_GAIN    ?= 0.01
STOP        ?= on
# 1: an ended run is remembered (cko-docs --memory-add), a new one starts
# from the remembered best of its signature (memory-seed.json, iteration 1's
# c0) and the model sees the remembered runs most like this one (memory.md);
# cko-init --no-memory: 0.
MEMORY      ?= 1

# ---- checks before anything is planned ----
# ITER and CANDIDATES are whole numbers, bounded: make reads the rules of
# every candidate each time it starts (about 1 ms each), so a huge ITER
# would parse for minutes. cko-init checks the same bounds.
MAX_ITER       := 1000
MAX_CANDIDATES := 64
MAX_CANDIDATES_TOTAL := 8192
nodigits = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst 7,,$(subst 8,,$(subst 9,,$(1)))))))))))
# $(call whole,V): V when it is one whole number without leading zeros, else empty.
whole = $(if $(filter 1,$(words $(1))),$(if $(call nodigits,$(1)),,$(if $(filter 0%,$(1)),$(filter 0,$(1)),$(1))))
ifeq ($(call whole,$(ITER)),)
$(error ITER=$(ITER): expected a whole number >= 0 (the last iteration, e.g. ITER=7, no leading zeros))
endif
ifeq ($(filter-out 0,$(call whole,$(CANDIDATES))),)
$(error CANDIDATES=$(CANDIDATES): expected a whole number >= 1)
endif
ifneq ($(shell [ $(ITER) -le $(MAX_ITER) ] 2>/dev/null && echo ok),ok)
$(error ITER=$(ITER): at most $(MAX_ITER) iterations in one run; to go on, start a new run from this one's best: cko-init --from $(CURDIR))
endif
ifneq ($(shell [ $(CANDIDATES) -le $(MAX_CANDIDATES) ] 2>/dev/null && [ $$(( $(ITER) * $(CANDIDATES) )) -le $(MAX_CANDIDATES_TOTAL) ] && echo ok),ok)
$(error ITER=$(ITER) with CANDIDATES=$(CANDIDATES): at most $(MAX_CANDIDATES) candidates an iteration and $(MAX_CANDIDATES_TOTAL) in all)
endif

# One make at a time in a run folder: two would write the same targets.
# The lock (flock on .make.lock, holding make's pid) is kept by a waiter
# that lives as long as this make, so the lock of a killed make is free
# again at once. make -n and -q, which write nothing, take no lock.
DRY_RUN := $(findstring n,$(filter-out --%,$(firstword -$(MAKEFLAGS))))$(findstring q,$(filter-out --%,$(firstword -$(MAKEFLAGS))))
ifeq ($(DRY_RUN),)
ifneq ($(or $(filter-out show,$(MAKECMDGOALS)),$(if $(MAKECMDGOALS),,all)),)
RUN_LOCK := $(shell command -v flock >/dev/null || { echo ok; exit; }; m=$$PPID; exec 9>>.make.lock; \
	if flock -w 2 9; then echo $$m >.make.lock; tail --pid=$$m -s 0.1 -f /dev/null </dev/null >/dev/null 2>&1 & echo ok; \
	else echo "pid $$(cat .make.lock)"; fi)
ifneq ($(RUN_LOCK),ok)
$(error another make ($(RUN_LOCK)) is running in this run folder ($(CURDIR)); wait for it to end (or stop it), then run make again)
endif
endif
endif

ifneq ($(CKO_BIN),)
export PATH := $(CKO_BIN):$(PATH)
endif
export CKO_SHARE
# Model-written code is compiled and run under Landlock (docs/sandbox.md);
# SANDBOX=off is cko-init --no-sandbox. Set here, never taken from the shell.
export CKO_SANDBOX := $(SANDBOX)
# Progress lines from the tools only with V=1; warnings always show.
ifneq ($(V),1)
export CKO_QUIET := 1
endif

# A GPU step: one GPU of the pool, held for the whole command (cko-lock; a
# step that only writes its skipped record, --after, takes none).
GPU = cko-lock -n $(GPUS) $(if $(LOCK_DIR),-d $(LOCK_DIR)) $(if $(LAUNCHER),--launcher '$(LAUNCHER)') --
# A negative verdict (exit 1) is recorded in the target; make goes on.
VERDICT = || [ $$? -eq 1 ]
# The same, and exit 3 (the tool cannot work here: no ncu, no
# compute-sanitizer, an unwritable memory folder) is recorded too.
VERDICT_OR_ENV = || case $$? in 1|3) true ;; *) false ;; esac
# The budget's rules for cko-rank; a stopped iteration's candidates say why
# (proposal.json status "stopped"), are skipped, and the later ones follow.
BUDGET = $(if $(filter off,$(STOP)),,--sol-stop $(SOL_STOP) --patience $(PATIENCE) --min-gain $(MIN_GAIN))
ARCH = $$(jq -r .arch props.json)
COMPILE = cko-compile --arch $(ARCH) -t $(COMPILE_TIMEOUT) -m $(COMPILE_MEMORY) -s $(SIGNATURE)
# The requests of a candidate folder: all, the performance cases, the first
# performance case.
REQUESTS = $$(jq -r '.requests[]?' $(1)/requests/index.json | sed 's|^|$(1)/requests/|')
PERF_CASES = $$(jq -r '.[] | select(.kind == "performance") | .name' cases/index.json)
PERF_REQUESTS = $$(jq -r '.[] | select(.kind == "performance") | "$(1)/requests/" + .name + ".json"' cases/index.json)
FIRST_PERF_REQUEST = $(1)/requests/$$(jq -r '[.[] | select(.kind == "performance")][0].name' cases/index.json).json

# Iterations 001..ITER of CANDIDATES candidates each (iter-NNN/cJ); iteration
# 000 is the initial kernel alone (iter-000/c0).
, := ,
empty :=
space := $(empty) $(empty)
ITERS := $(shell seq -f %03g 1 $(ITER))
CAND_NUMS := $(shell seq 0 $$(( $(CANDIDATES) - 1 )))
cands_of = $(if $(filter 000,$(1)),iter-000/c0,$(CAND_NUMS:%=iter-$(1)/c%))
results_of = $(addsuffix /result.json,$(call cands_of,$(1)))
CANDS := $(foreach i,000 $(ITERS),$(call cands_of,$(i)))
ALL_RESULTS := $(CANDS:=/result.json)
LAST := $(lastword 000 $(ITERS))
# $(call prev,NNN): the iteration before NNN (from the pairs 001:000 002:001 ...).
PREV_OF := $(join $(ITERS),$(addprefix :,000 $(ITERS)))
prev = $(patsubst $(1):%,%,$(filter $(1):%,$(PREV_OF)))

# An ITER below the iterations this run already has makes nothing new: say
# so, and what the history and summary cover.
HAVE_ITER := $(shell ls -d iter-[0-9]*/ 2>/dev/null | tr -dc '0-9\n' | sort -n | tail -n 1)
ifneq ($(shell [ -n "$(HAVE_ITER)" ] && [ "$(HAVE_ITER)" -gt $(ITER) ] 2>/dev/null && echo y),)
HAVE_N := $(shell expr $(HAVE_ITER) + 0)
COVERED := $(shell jq -r '[.candidates[].id | capture("^iter-(?<n>[0-9]+)/").n | tonumber] | max' history.json 2>/dev/null)
$(info run.mk: ITER=$(ITER), but iterations 1..$(HAVE_N) exist: ITER=$(ITER) makes nothing new$(if $(COVERED),; history.json and summary.json cover iterations 0..$(COVERED),; history.json and summary.json will cover iterations 0..$(ITER)). Give ITER=$(shell expr $(HAVE_N) + 1) or more to add iterations.)
endif

HEATMAP := $(if $(shell command -v gnuplot 2>/dev/null),heatmap.png,)
# The vendor baseline for the entries cko-baseline knows: sgemm and
# transpose (cuBLAS), reduce_sum (CUB). ($(shell) in make 4.3 does not see
# the PATH exported above, so look in CKO_BIN first.)
HAVE_BASELINE := $(or $(wildcard $(CKO_BIN)/cko-baseline),$(shell command -v cko-baseline 2>/dev/null))
BASELINE := $(if $(and $(HAVE_BASELINE),$(filter sgemm transpose reduce_sum,$(shell jq -r .entry $(SIGNATURE) 2>/dev/null))),baseline.json)
# The proposals see the baseline's times beside the speed of light.
HISTORY_EXTRA += $(BASELINE)

# No recipe, so `make -q` says whether the run is complete; `make show`
# prints the summary again.
all: summary.json $(HEATMAP)

show:
	@cko-rank --print summary.json
	@[ -f best.cu ] && echo "best kernel: $(CURDIR)/best.cu (launch: best-launch.json, replay requests: replay/)" || true
	@$(if $(HEATMAP),echo "heatmap: $(CURDIR)/heatmap.png",echo "heatmap: none (gnuplot is not installed)")

# ---- the workload: GPU properties, inputs, expected outputs ----

props.json:
	$(GPU) cko-props --measure -o $@

cases/index.json: $(SIGNATURE) $(CASES)
	cko-gen --hidden-seed $(HIDDEN_SEED) -o cases $(SIGNATURE) $(CASES)

reference/compile.json: $(REFERENCE) $(REFERENCE_LAUNCH) $(SIGNATURE) props.json
	@mkdir -p reference
	$(COMPILE) -l $(REFERENCE_LAUNCH) -o reference/kernel.cubin -j $@ $(REFERENCE)

reference/requests/index.json: reference/compile.json cases/index.json
	cko-request --reference --props props.json -s $(SIGNATURE) -l $(REFERENCE_LAUNCH) -b reference/kernel.cubin \
	  -c cases -o reference/requests

# The reference's outputs are the expected outputs; a reference that fails
# its own checks (faults, unwritten elements, nondeterminism) stops the run.
reference/run.json: reference/requests/index.json
	$(GPU) cko-run -t $(TIMEOUT) -o $@ $(call REQUESTS,reference)
	cko-gen --check-expected cases

baseline.json: iter-000/c0/requests/index.json reference/run.json
	$(GPU) cko-baseline -w $(WARMUP) -n $(TIMED) -o $@ $(call PERF_REQUESTS,iter-000/c0)

reference/bench.json: reference/run.json
	$(GPU) cko-bench -w $(REF_WARMUP) -n $(REF_TIMED) -t $(TIMEOUT) -o $@ $(call PERF_REQUESTS,reference)

# ---- the candidates: compile, launch rules, run + compare every case, time, profile ----
# Prerequisites below may name files through $$* (the stem: a candidate
# folder or an iteration number) or $$(@D), read when make needs them.
.SECONDEXPANSION:

# A candidate's proposal.json, kernel.cu and launch.json come with its
# iteration's proposed.json. Once there, kernel.cu and launch.json are
# prerequisites too: edited by hand, they make the candidate again
# (docs/run.md, "Editing a candidate").
$(CANDS:=/proposal.json): %/proposal.json: | $$(dir $$*)proposed.json ;

# Each step is given the record of the step before it (--after): when that
# record is not ok, the step only writes a skipped record saying why
# (docs/formats.md), so a failure skips the rest of its candidate.
$(CANDS:=/compile.json): %/compile.json: %/proposal.json $$(wildcard $$*/kernel.cu $$*/launch.json) \
		props.json $(SIGNATURE)
	$(COMPILE) --after $< -l $*/launch.json -o $*/kernel.cubin -j $@ $*/kernel.cu $(VERDICT)

$(CANDS:=/requests/index.json): %/requests/index.json: %/compile.json cases/index.json reference/run.json
	cko-request --after $< --props props.json -s $(SIGNATURE) -l $*/launch.json -b $*/kernel.cubin \
	  -c cases -o $*/requests $(VERDICT)

$(CANDS:=/run.json): %/run.json: %/requests/index.json
	$(GPU) cko-run --after $< -t $(TIMEOUT) $(if $(filter 1,$(KEEP_OUTPUTS)),--keep-outputs) -o $@ \
	  $(call REQUESTS,$*) $(VERDICT)

$(CANDS:=/compare.json): %/compare.json: %/run.json
	cko-compare --after $< --requests -o $@ $(call REQUESTS,$*) $(VERDICT)

$(CANDS:=/bench.json): %/bench.json: %/compare.json
	$(GPU) cko-bench --after $< --check -w $(WARMUP) -n $(TIMED) -t $(TIMEOUT) -o $@ \
	  $(call PERF_REQUESTS,$*) $(VERDICT)

ifeq ($(USE_NSIGHT),1)
# Exit 3 (no ncu, counters not permitted) leaves profile.json saying why; the run goes on.
$(CANDS:=/profile.json): %/profile.json: %/bench.json
	$(GPU) cko-profile --after $< -o $@ --summary $*/profile.txt --report $*/profile.ncu-rep \
	  $(call FIRST_PERF_REQUEST,$*) $(VERDICT_OR_ENV)
$(CANDS:=/result.json): %/result.json: %/profile.json
endif

$(CANDS:=/result.json): %/result.json: %/bench.json reference/bench.json props.json
	cko-rank --candidate $* --props props.json --reference reference/bench.json -o $@

# ---- iterations: 000 is the initial kernel, then proposals from the history ----
iter-000/proposed.json: $(INITIAL) $(INITIAL_LAUNCH)
	@mkdir -p iter-000/c0
	cp $(INITIAL) iter-000/c0/kernel.cu
	cp $(INITIAL_LAUNCH) iter-000/c0/launch.json
	jq -n '{proposer: "initial", status: "ok", note: "the initial kernel", parent: null}' >iter-000/c0/proposal.json
	jq -n '{tool: "make", iteration: 0, candidates: ["c0"]}' >$@.tmp && mv $@.tmp $@

# $(call stopped,iter-NNN): the budget stopped the iteration (its history.json
# says .stop); it proposes nothing and its candidates only say why.
stopped = jq -e .stop $(1)/history.json >/dev/null
# mk/stop.sh writes them.
STOP_RECORDS = sh $(CKO_SHARE)/mk/stop.sh $(@D) $(CAND_NUMS)
# iter-NNN/proposed.json, written last.
PROPOSED = jq -n '{tool: "make", iteration: ("$*" | tonumber), candidates: [$(subst $(space),$(,),$(CAND_NUMS:%="c%"))]}' \
	>$@.tmp && mv $@.tmp $@

# Proposers. Each writes iter-NNN/cJ/{kernel.cu,launch.json,proposal.json},
# then iter-NNN/proposed.json last; mk/llm.mk has the model's rules.
PROPOSE_tune = cko-tune $(if $(SPACE),-s $(SPACE),--kernel $(INITIAL) -l $(INITIAL_LAUNCH)) -H $(@D)/history.json \
	-i $* -k $(CANDIDATES) --seed $(SEED) --strategy $(STRATEGY) $(if $(call seed_of,$*),--memory $(MEMORY_SEED)) -o $(@D)
PROPOSE_manual = cko-propose-manual -i $* -k $(CANDIDATES) -o $(@D) $(PROPOSALS)

# The memory across runs: the remembered best whose signature this run's
# fits (cko-docs --memory-seed; "status": "none" when there is none) is
# candidate c0 of iteration 1, compiled and verified like any other; the
# tuner searches around it, the model is not asked for c0 (mk/llm.mk).
ifeq ($(MEMORY),1)
MEMORY_SEED := memory-seed.json
memory-seed.json: $(SIGNATURE)
	cko-docs --memory-seed . -o $@
endif
# $(call seed_of,NNN): the seed, for iteration 1's proposal.
seed_of = $(if $(filter 001,$(1)),$(MEMORY_SEED))
ifeq ($(PROPOSER),tune)
iter-001/proposed.json: $(MEMORY_SEED)
endif

ifeq ($(PROPOSER),llm)
include $(CKO_SHARE)/mk/llm.mk
else
$(ITERS:%=iter-%/proposed.json): iter-%/proposed.json: iter-%/history.json
	if $(call stopped,$(@D)); then $(STOP_RECORDS); else $(PROPOSE_$(PROPOSER)); fi
endif

# What the proposer of iteration NNN sees: the results up to the iteration
# before. Made once: a candidate made again later (its kernel.cu edited by
# hand) changes history.json and summary.json, never what a later iteration
# was shown, so later proposals (and the model's responses) stay.
$(ITERS:%=iter-%/history.json): iter-%/history.json: | $$(call results_of,$$(call prev,$$*)) $(HISTORY_EXTRA)
	@mkdir -p $(@D)
	cko-rank --run . --upto $(call prev,$*) $(BUDGET) -o $@

# ---- finalize ----
history.json: $(ALL_RESULTS)
	cko-rank --run . --upto $(LAST) -o history.json

# --sanitize: memcheck and racecheck over the best candidates (visible
# correctness cases) until one is clean; the rejected ones cannot be best.
# Exit 3 (no compute-sanitizer) leaves sanitize.json saying so.
ifeq ($(SANITIZE),1)
SANITIZE_JSON := sanitize.json
sanitize.json: history.json
	$(GPU) cko-sanitize --history history.json -o $@ $(VERDICT_OR_ENV)
endif

# best.cu, best-launch.json and replay/ come with it when a candidate is valid.
summary.json: history.json $(BASELINE) $(SANITIZE_JSON)
	cko-rank --run . --upto $(LAST) --summary summary.json --best best.cu --replay replay $(if $(SANITIZE_JSON),--sanitize sanitize.json)
	@# the best candidate's outputs, kept: replay/out/ (and the replay requests proven)
	@if [ -f best.cu ]; then echo "cko-run replay/*.json"; \
	  $(GPU) cko-run -t $(TIMEOUT) --keep-outputs -o replay-run.json replay/*.json; fi
	@# the memory across runs (cko-docs --memory-add): a run without a valid best
	@# is refused (exit 1), and an unwritable memory folder (exit 3) only warns
	$(if $(filter 1,$(MEMORY)),cko-docs --memory-add . $(VERDICT_OR_ENV))
	@cko-rank --print summary.json
	@[ -f best.cu ] && echo "best kernel: $(CURDIR)/best.cu (launch: best-launch.json, replay requests: replay/)" || true

# `make -f run.mk export`: the best candidate as code to build and call
# (cko-export; EXPORT_DIR, default export/). "export" is a make directive,
# so the target is named through a variable.
EXPORT_DIR ?= export
EXPORT_TARGET := export
$(EXPORT_TARGET): summary.json
	cko-export -o $(EXPORT_DIR) .

heatmap.png: history.json
	cko-heatmap -o heatmap history.json
	@echo "heatmap: $(CURDIR)/heatmap.png"

.PHONY: all show $(EXPORT_TARGET)
