// How the pages write numbers and times: counts with US digit grouping (1,234,567), times in the
// reader's locale and zone, and a time that never happened as "never".

export const number = (value) => value.toLocaleString('en-US');

/** An ISO time from the API, or null. */
export const when = (iso) => (iso === null ? 'never' : new Date(iso).toLocaleString());
