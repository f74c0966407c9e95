/** Usage fields of the Anthropic, OpenAI and Gemini APIs (JSON bodies and SSE events alike). */
const usageField =
  /"(input_tokens|output_tokens|cache_creation_input_tokens|cache_read_input_tokens|prompt_tokens|completion_tokens|total_tokens|promptTokenCount|candidatesTokenCount|totalTokenCount)"\s*:\s*(\d{1,12})/g;

/** Characters kept from one chunk to the next so a field split across chunks is still seen. */
const carry = 96;

/**
 * Counts the tokens an API answer reports, from the bytes as they stream past (nothing is
 * buffered beyond a short tail). Streams repeat cumulative counts, so each field keeps its
 * largest value; totals win over sums when the API gives one.
 */
export class TokenMeter {
  private readonly fields = new Map<string, number>();
  private tail = "";

  observe(chunk: Buffer): void {
    const text = this.tail + chunk.toString("latin1");
    for (const match of text.matchAll(usageField)) {
      const [, field = "", count = "0"] = match;
      this.fields.set(field, Math.max(this.fields.get(field) ?? 0, Number(count)));
    }
    this.tail = text.slice(-carry);
  }

  /** Tokens reported so far; 0 when the answer said nothing about usage. */
  total(): number {
    const f = (name: string): number => this.fields.get(name) ?? 0;
    const reportedTotal = Math.max(f("total_tokens"), f("totalTokenCount"));
    if (reportedTotal > 0) return reportedTotal;
    return (
      f("input_tokens") +
      f("output_tokens") +
      f("cache_creation_input_tokens") +
      f("cache_read_input_tokens") +
      f("prompt_tokens") +
      f("completion_tokens") +
      f("promptTokenCount") +
      f("candidatesTokenCount")
    );
  }
}
