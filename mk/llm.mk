# mk/llm.mk: the model as the proposer (PROPOSER=llm), included by mk/run.mk.
# Per iteration: the context from the history, the prompt (written only when
# its content changes), one model turn per candidate, and local validation
# of each answer into iter-NNN/cJ. A response is never made again unless it
# is deleted: it depends on its prompt only for order. Parts of the workload
# the user left out (GENERATE) are generated the same way from the
# description.

LLM_CONFIG ?= config.json
LLM_TOOLS  ?= $(CKO_SHARE)/prompts/tools.json
LLM_ENABLE  = gpu_properties,compile_check$(if $(filter 1,$(RESEARCH)),$(,)search_guidance)$(if $(filter 1,$(USE_NSIGHT)),$(,)profile)
# Requests the model may profile: the visible performance cases of earlier candidates.
LLM_ALLOW   = $$(for c in $(PERF_CASES); do for f in iter-*/c*/requests/$$c.json; do [ -e "$$f" ] && printf -- '--allow %s ' "$$f"; done; done)

# --nvidia-research: notes from the guidance corpus, read into every context.
ifeq ($(RESEARCH),1)
HISTORY_EXTRA += research.md
research.md: workload/description.txt
	cko-docs --research "$$(head -c 2000 workload/description.txt)" -o $@
endif

# The memory across runs: the remembered runs most like this workload (its
# signature's shape and description), read into every context as examples.
# The seed (mk/run.mk) comes first: it is iteration 1's c0, not asked for.
ifeq ($(MEMORY),1)
HISTORY_EXTRA += memory.md
memory.md: $(SIGNATURE) $(MEMORY_SEED)
	cko-docs --memory "$$(jq -r '[.entry, (.params[]? | .name, .dtype, .kind)] | map(strings) | join(" ")' $(SIGNATURE)) $$(head -c 2000 workload/description.txt 2>/dev/null)" \
	  --exclude . --first "$$(jq -r 'select(.status == "ok") | .entry' $(MEMORY_SEED))" -o $@
endif
# $(call from_memory,NNN,J): true when candidate J of iteration NNN is the seed's.
from_memory = $(if $(and $(filter 001,$(1)),$(filter 0,$(2)),$(MEMORY_SEED)),jq -e '.status == "ok"' $(MEMORY_SEED) >/dev/null,false)

# Per iteration NNN (the stem): context and meta (one cko-llm context), the
# prompt, one response per candidate, then the candidates from the responses.
iter-%/context.md iter-%/meta.json: iter-%/history.json
	cko-llm context --run . --iter $* -c $(LLM_CONFIG) -o $(@D)/context.md --meta $(@D)/meta.json

$(ITERS:%=iter-%/prompt.json): iter-%/prompt.json: iter-%/context.md iter-%/meta.json
	cko-llm render -t $$(jq -r .template $(@D)/meta.json) -v context=$(@D)/context.md -o $@

# iter-NNN/response-J.json, with its transcript-J.json and usage-J.json. A
# stopped iteration (the budget, mk/run.mk) asks nothing: its responses and
# candidates only say why.
responses_of = $(CAND_NUMS:%=iter-$(1)/response-%.json)
RESPONSES := $(foreach i,$(ITERS),$(call responses_of,$(i)))
$(RESPONSES): | $$(@D)/prompt.json props.json
	if $(call stopped,$(@D)); then jq '{tool: "make", status: "stopped", reason: .stop.reason}' $(@D)/history.json >$@; \
	elif $(call from_memory,$(patsubst iter-%,%,$(@D)),$(patsubst response-%.json,%,$(@F))); then \
	  jq '{tool: "make", status: "memory", entry, note}' $(MEMORY_SEED) >$@; \
	else cko-llm ask -c $(LLM_CONFIG) --tools $(LLM_TOOLS) --enable $(LLM_ENABLE) \
	  --var arch=$(ARCH) --var signature=$(SIGNATURE) $(LLM_ALLOW) \
	  --transcript $(subst /response-,/transcript-,$@) --usage $(subst /response-,/usage-,$@) -o $@ $(@D)/prompt.json; fi
$(call responses_of,001): | $(MEMORY_SEED)

PARENT = "$$(jq -r '.parent // empty' $(@D)/meta.json)"
$(ITERS:%=iter-%/proposed.json): iter-%/proposed.json: $$(call responses_of,$$*) cases/index.json
	if $(call stopped,$(@D)); then $(STOP_RECORDS); else \
	for j in $(CAND_NUMS); do \
	  if [ "$$(jq -r .status $(@D)/response-$$j.json)" = memory ]; then \
	    cko-docs --memory-candidate $(MEMORY_SEED) -o $(@D)/c$$j || exit $$?; continue; fi; \
	  cko-llm extract -s $(SIGNATURE) -C cases --parent $(PARENT) -o $(@D)/c$$j $(@D)/response-$$j.json \
	    $(VERDICT) || exit $$?; \
	done; \
	$(PROPOSED); fi

# ---- generating the parts of the workload the user left out ----
GEN := workload/gen
ASK_GEN = cko-llm ask -c $(LLM_CONFIG) --transcript $(GEN)/$(1)-transcript.json --usage iter-000/usage-$(1).json -o $@
$(GEN) iter-000:
	mkdir -p $@

ifneq ($(filter signature.json,$(GENERATE)),)
$(GEN)/signature-prompt.json: workload/description.txt | $(GEN) iter-000
	cko-llm render -t generate-signature -v description=workload/description.txt -o $@
$(GEN)/signature-response.json: | $(GEN)/signature-prompt.json
	$(call ASK_GEN,signature) $(GEN)/signature-prompt.json
$(SIGNATURE): $(GEN)/signature-response.json
	cko-llm extract -w signature -o $@ $<
endif

ifneq ($(filter cases.json,$(GENERATE)),)
$(GEN)/cases-prompt.json: workload/description.txt $(SIGNATURE) | $(GEN) iter-000
	cko-llm render -t generate-cases -v description=workload/description.txt -v signature=$(SIGNATURE) -o $@
$(GEN)/cases-response.json: | $(GEN)/cases-prompt.json
	$(call ASK_GEN,cases) $(GEN)/cases-prompt.json
$(CASES): $(GEN)/cases-response.json $(SIGNATURE)
	cko-llm extract -w cases -s $(SIGNATURE) -o $@ $<
endif

ifneq ($(filter reference.cu,$(GENERATE)),)
$(GEN)/reference-prompt.json: workload/description.txt $(SIGNATURE) $(CASES) | $(GEN) iter-000
	cko-llm render -t generate-reference -v description=workload/description.txt -v signature=$(SIGNATURE) -v cases=$(CASES) -o $@
$(GEN)/reference-response.json: | $(GEN)/reference-prompt.json
	$(call ASK_GEN,reference) $(GEN)/reference-prompt.json
$(REFERENCE) $(REFERENCE_LAUNCH) &: $(GEN)/reference-response.json cases/index.json
	cko-llm extract -w reference -s $(SIGNATURE) -C cases -l $(REFERENCE_LAUNCH) -o $(REFERENCE) $<
endif

ifneq ($(filter initial.cu,$(GENERATE)),)
$(GEN)/initial-prompt.json: workload/description.txt $(SIGNATURE) $(CASES) $(REFERENCE) props.json | $(GEN) iter-000
	cko-llm render -t generate-initial -v description=workload/description.txt -v signature=$(SIGNATURE) -v cases=$(CASES) -v reference=$(REFERENCE) -v gpu=props.json -o $@
$(GEN)/initial-response.json: | $(GEN)/initial-prompt.json
	$(call ASK_GEN,initial) $(GEN)/initial-prompt.json
$(INITIAL) $(INITIAL_LAUNCH) &: $(GEN)/initial-response.json cases/index.json
	cko-llm extract -w initial -s $(SIGNATURE) -C cases -l $(INITIAL_LAUNCH) -o $(INITIAL) $<
endif
