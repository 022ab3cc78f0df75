// The path of a request URL, without its query: what journals, logs and messages name.
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
