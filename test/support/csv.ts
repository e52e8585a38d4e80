// Reads CSV back as a spreadsheet or a CSV library would, strictly by RFC 4180:
// a bare quote, CR or LF outside quotes, or a last record without its CRLF, is an error.

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"' && field === '') {
      i += 1;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i += 1;
          break;
        } else field += text[i++];
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\r') throw new Error(`text after a quoted field at ${i}`);
    } else if (text[i] === ',') {
      record.push(field);
      field = '';
      i += 1;
    } else if (text[i] === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else if (text[i] === '\r' || text[i] === '\n' || text[i] === '"') {
      throw new Error(`a bare ${JSON.stringify(text[i])} outside quotes at ${i}`);
    } else field += text[i++];
  }
  if (field !== '' || record.length) throw new Error('the last record does not end with CRLF');
  return records;
}
