//! Facts from vLLM 0.33's model registry (`vllm/model_executor/models/registry.py`).

/// Architectures that do not implement `SupportsPP`, so pipeline parallelism
/// refuses them (`ModelConfig.verify_with_parallel_config`): read from the
/// registry and each class's bases in the 0.33.0 wheel. Every Llama, Qwen 2/3
/// (MoE, Next, 3.5), Mistral/Mixtral, Gemma 1-3, gpt-oss and DeepSeek
/// architecture supports it.
const WITHOUT_PIPELINE_PARALLEL: &[&str] = &[
    // Text generation.
    "AliceAIForCausalLM",
    "DomynEdgeForCausalLM",
    "DoryForCausalLM",
    "Gemma3nForCausalLM",
    "HrmTextForCausalLM",
    "IQuestLoopCoderForCausalLM",
    "Mamba2ForCausalLM",
    "Zamba2ForCausalLM",
    // Multimodal.
    "AriaForConditionalGeneration",
    "CohereAsrForConditionalGeneration",
    "DiffusionGemmaForBlockDiffusion",
    "FireRedASR2ForConditionalGeneration",
    "FunASRForConditionalGeneration",
    "Gemma3nForConditionalGeneration",
    "Idefics3ForConditionalGeneration",
    "NemotronH_Nano_Omni_Reasoning_V3",
    "NemotronH_Nano_VL_V2",
    "NemotronH_Omni_Reasoning_V3",
    "NemotronH_Super_Omni_Reasoning_V3",
    "NemotronParseForConditionalGeneration",
    "PaddleOCRVLForConditionalGeneration",
    "Phi4MMForCausalLM",
    "RadioMBartPrefixForCausalLM",
    "SmolVLMForConditionalGeneration",
    "WhisperForConditionalGeneration",
    // Embedding, classification and late-interaction models.
    "BertForMaskedLM",
    "BertModel",
    "BertSpladeSparseEmbeddingModel",
    "BgeM3EmbeddingModel",
    "CLIPModel",
    "EmbeddingGemma2Model",
    "Gemma3TextModel",
    "GteModel",
    "GteNewModel",
    "Lfm2BidirectionalModel",
    "LlamaBidirectionalModel",
    "ModernBertModel",
    "NomicBertModel",
    "RobertaForMaskedLM",
    "RobertaModel",
    "SiglipModel",
    "Terratorch",
    "VoyageQwen3BidirectionalEmbedModel",
    "XLMRobertaModel",
    "BertForSequenceClassification",
    "D3ForSequenceClassification",
    "GPT2ForSequenceClassification",
    "GteNewForSequenceClassification",
    "LlamaBidirectionalForSequenceClassification",
    "ModernBertForSequenceClassification",
    "RobertaForSequenceClassification",
    "XLMRobertaForSequenceClassification",
    "BertForTokenClassification",
    "ModernBertForTokenClassification",
    "OpenAIPrivacyFilterForTokenClassification",
    "RobertaForTokenClassification",
    "XLMRobertaForTokenClassification",
    "ColBERTJinaRobertaModel",
    "ColBERTLfm2Model",
    "ColBERTModernBertModel",
    "ColModernVBertForRetrieval",
    "ColUltraVBertForRetrieval",
    "HF_ColBERT",
    "JinaForRanking",
    "ModernVBertModel",
];

/// The first of `architectures` that pipeline parallelism cannot split.
pub fn without_pipeline_parallel(architectures: &[String]) -> Option<&str> {
    architectures.iter().map(String::as_str).find(|a| WITHOUT_PIPELINE_PARALLEL.contains(a))
}
