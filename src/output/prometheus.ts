// The Prometheus text exposition format (0.0.4): # HELP and # TYPE once per metric family, label
// values escaped (\\, \", \n), samples as the service's decimal text (tally never turns an amount
// into a float; what Prometheus does with it is its business).

export interface Sample {
  labels: Record<string, string>;
  /** Decimal text, as the service wrote it or tally computed it exactly. */
  value: string;
}

export interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  samples: Sample[];
}

export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value Prometheus reads: a decimal's text without a leading +, or NaN for nothing. */
function sampleValue(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : 'NaN';
}

export function exposition(families: Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
      lines.push(`${family.name}${labels ? `{${labels}}` : ''} ${sampleValue(sample.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
