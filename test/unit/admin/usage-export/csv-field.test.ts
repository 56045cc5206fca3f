// CSV fields (admin/usage-export/csv-field.ts): RFC 4180 quoting, and text a spreadsheet would run as
// a formula shown as text.
import t from 'tap';
import { csvRecord, csvText } from '../../../../admin/usage-export/csv-field.js';

t.test('plain text is written as it is', async (t) => {
  t.equal(csvText('alice key'), 'alice key');
  t.equal(csvText(''), '');
});

t.test('a field with a comma, a quote or a line break is quoted, its quotes doubled', async (t) => {
  t.equal(csvText('a,b'), '"a,b"');
  t.equal(csvText('say "hi"'), '"say ""hi"""');
  t.equal(csvText('two\nlines'), '"two\nlines"');
  t.equal(csvText('two\r\nlines'), '"two\r\nlines"');
});

t.test('text starting with = + - @ tab or CR gets a leading apostrophe', async (t) => {
  t.equal(csvText('=HYPERLINK("http://evil.test","x")'), '"\'=HYPERLINK(""http://evil.test"",""x"")"');
  t.equal(csvText('+1'), "'+1");
  t.equal(csvText('-2+3'), "'-2+3");
  t.equal(csvText('@SUM(A1)'), "'@SUM(A1)");
  t.equal(csvText('\tcmd'), "'\tcmd");
  t.equal(csvText('\rcmd'), '"\'\rcmd"');
  t.equal(csvText('a=b'), 'a=b', 'only at the start');
});

t.test('a record: numbers as they are, CRLF at the end', async (t) => {
  t.equal(csvRecord(['key, one', 3, '0.5']), '"key, one",3,0.5\r\n');
});
