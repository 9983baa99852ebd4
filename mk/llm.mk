# mk/llm.mk: the model as the proposer (PROPOSER=llm), included by mk/run.mk.
# Per iteration: the context from the history, the prompt (written only when
# its content changes), one model turn per candidate, and local validation
# of each answer into iter-NNN/cJ. A response is never made again unless it
# is deleted: it depends on its prompt only for order. Parts of the workload
# the user left out (GENERATE) are generated the same way from the
# description.

, := ,
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

define propose
iter-$(1)/context.md iter-$(1)/meta.json &: iter-$(1)/history.json
	cko-llm context --run . --iter $(1) -o iter-$(1)/context.md --meta iter-$(1)/meta.json

iter-$(1)/prompt.json: iter-$(1)/context.md iter-$(1)/meta.json
	cko-llm render -t $$$$(jq -r .template iter-$(1)/meta.json) -v context=iter-$(1)/context.md -o $$@

$(foreach j,$(CAND_NUMS),
iter-$(1)/response-$(j).json: | iter-$(1)/prompt.json props.json $(call seed_of,$(1))
	@if $$(call stopped,$(1)); then jq '{tool: "make", status: "stopped", reason: .stop.reason}' iter-$(1)/history.json >$$@; \
	elif $(call from_memory,$(1),$(j)); then jq '{tool: "make", status: "memory", entry, note}' $(MEMORY_SEED) >$$@; \
	else echo "cko-llm ask -o $$@ iter-$(1)/prompt.json"; \
	cko-llm ask -c $(LLM_CONFIG) --tools $(LLM_TOOLS) --enable $(LLM_ENABLE) \
	  --var arch=$$$$(jq -r .arch props.json) --var signature=$(SIGNATURE) $(LLM_ALLOW) \
	  --transcript iter-$(1)/transcript-$(j).json --usage iter-$(1)/usage-$(j).json -o $$@ iter-$(1)/prompt.json; fi
)

# A stopped iteration (the budget, mk/run.mk) asks nothing: its responses
# and candidates only say why.
iter-$(1)/proposed.json: $(foreach j,$(CAND_NUMS),iter-$(1)/response-$(j).json) cases/index.json
	@if $$(call stopped,$(1)); then $$(call stop_records,$(1)); else \
	for j in $(CAND_NUMS); do \
	  if [ "$$$$(jq -r .status iter-$(1)/response-$$$$j.json)" = memory ]; then \
	    echo "cko-docs --memory-candidate $(MEMORY_SEED) -o iter-$(1)/c$$$$j"; \
	    cko-docs --memory-candidate $(MEMORY_SEED) -o iter-$(1)/c$$$$j || exit $$$$?; continue; fi; \
	  echo "cko-llm extract -o iter-$(1)/c$$$$j"; \
	  cko-llm extract -s $(SIGNATURE) -C cases --parent "$$$$(jq -r '.parent // empty' iter-$(1)/meta.json)" \
	    -o iter-$(1)/c$$$$j iter-$(1)/response-$$$$j.json $$(VERDICT) || exit $$$$?; \
	done; \
	jq -n '{tool: "make", iteration: $(shell expr $(1) + 0), candidates: ("$(strip $(CAND_NUMS))" | split(" ") | map("c" + .))}' >$$@.tmp && mv $$@.tmp $$@; fi
endef

# ---- generating the parts of the workload the user left out ----
GEN := workload/gen
ASK_GEN = cko-llm ask -c $(LLM_CONFIG) --transcript $(GEN)/$(1)-transcript.json --usage iter-000/usage-$(1).json -o $$@ $$<
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
