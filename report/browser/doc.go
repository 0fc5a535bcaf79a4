// Package browser holds the real-browser test of report.html: headless Chromium loads the
// reports that `make test-browser` wrote, checks that they draw, and saves a screenshot of
// each. It is built only with the browser tag, so `make test` neither compiles nor runs it.
package browser
