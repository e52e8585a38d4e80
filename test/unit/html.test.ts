// The html tag (src/domain/html.ts): text put into markup stays text, in an element and in a quoted attribute.
import { describe, expect, it } from 'vitest';
import { html, htmlDocument, joinHtml, unsafeRawHtml, type Html } from '../../src/domain/html.js';

const ATTACKS = ['<script>alert(1)</script>', '"><img src=x onerror=1>', "' onmouseover='"];

describe('html', () => {
  it('escapes text in elements and in both kinds of quoted attribute', () => {
    for (const attack of ATTACKS) {
      const out = String(html`<p title="${attack}" data-x='${attack}'>${attack}</p>`);
      expect(out).not.toContain('<script');
      expect(out).not.toContain('<img');
      // Only the template's own quotes are left: the attack's are entities.
      expect(out.match(/["']/g)).toEqual(['"', '"', "'", "'"]);
    }
    expect(String(html`<b>${'a & b'}</b>`)).toBe('<b>a &amp; b</b>');
  });

  it('keeps Html as it is, joins lists, and leaves out null, undefined and false', () => {
    const item = (text: string): Html => html`<li>${text}</li>`;
    expect(String(html`<ul>${['<1>', '2'].map(item)}</ul>`)).toBe('<ul><li>&lt;1&gt;</li><li>2</li></ul>');
    expect(String(html`a${null}b${undefined}c${false}d${0}`)).toBe('abcd0');
    expect(String(joinHtml(['<a>', html`<br>`], ', '))).toBe('&lt;a&gt;, <br>');
    expect(String(html`${unsafeRawHtml('<svg/>')}`)).toBe('<svg/>');
  });

  it('refuses a template with an unquoted attribute value, which escaping cannot make safe', () => {
    const id = 'x onmouseover=alert(1)';
    expect(() => html`<p id=${id}>`).toThrow(/unquoted attribute/);
    expect(() => html`<p id= ${id}>`).toThrow(/unquoted attribute/);
    expect(() => html`<p class="a" id=${id}>`).toThrow(/unquoted attribute/);
    expect(String(html`<p>a = ${'b'}</p>`)).toBe('<p>a = b</p>');
  });

  it('frames a document with its title escaped', () => {
    const out = String(htmlDocument({ title: '</title><script>', head: html``, body: html`<main></main>` }));
    expect(out.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(out).toContain('<title>&lt;/title&gt;&lt;script&gt;</title>');
  });
});
