// Package browser loads pages into headless Chromium (Debian's chromium)
// for the tests and benchmarks of the HTML reports: it collects what the
// page's console reports as errors, evaluates script, clicks and takes
// screenshots, through the DevTools protocol (chromedp).
//
// Chromium runs without network: every flag that would make it reach out
// (background networking, component updates, sync, first-run tasks) is
// off, and each browser gets a fresh profile, so a page that loads here
// loads offline, from disk, anywhere.
package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Binary returns the Chromium to run: $ROOMSPEC_CHROMIUM, else chromium
// on the PATH, else /usr/bin/chromium; "" when there is none.
func Binary() string {
	if p := os.Getenv("ROOMSPEC_CHROMIUM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// Browser is a running headless Chromium.
type Browser struct {
	ctx    context.Context
	cancel func()
}

// Start starts headless Chromium for tb and stops it when tb ends; it
// skips tb, saying how to install it, when there is no Chromium.
func Start(tb testing.TB) *Browser {
	tb.Helper()
	bin := Binary()
	if bin == "" {
		tb.Skip("no Chromium: install Debian's chromium (apt-get install -y chromium) or set ROOMSPEC_CHROMIUM to a Chromium binary")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	// The first run starts the browser; it must not run under a timeout
	// (that would stop the browser with it).
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		tb.Fatalf("browser: starting %s: %v", bin, err)
	}
	b := &Browser{ctx: ctx, cancel: func() { cancel(); cancelAlloc() }}
	tb.Cleanup(b.cancel)
	return b
}

// Tab is a page open in a tab of its own.
type Tab struct {
	ctx    context.Context
	cancel func()
	mu     sync.Mutex
	errs   []string
}

// Open opens url in a new tab with a viewport of width × height and waits
// until ready, a script expression, is true (or timeout passes). The tab
// records every console error, uncaught exception and error log entry
// from the moment it opens.
func (b *Browser) Open(url string, width, height int, ready string, timeout time.Duration) (*Tab, error) {
	ctx, cancel := chromedp.NewContext(b.ctx)
	t := &Tab{ctx: ctx, cancel: cancel}
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return nil, fmt.Errorf("browser: new tab: %w", err)
	}
	console := chromedp.Events(ctx, runtime.ConsoleAPICalled)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	entries := chromedp.Events(ctx, cdplog.EntryAdded)
	go func() {
		for ev, err := range console {
			if err != nil {
				return
			}
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				t.record("console." + string(ev.Type) + ": " + strings.Join(args, " "))
			}
		}
	}()
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			t.record(fmt.Sprintf("exception at %d:%d: %s", d.LineNumber+1, d.ColumnNumber+1, msg))
		}
	}()
	go func() {
		for ev, err := range entries {
			if err != nil {
				return
			}
			if e := ev.Entry; e.Level == cdplog.EntryLevelError {
				t.record(fmt.Sprintf("log (%s): %s %s", e.Source, e.Text, e.URL))
			}
		}
	}()
	enable := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return chromedp.Void{}, err
	}
	nav, stop := context.WithTimeout(ctx, timeout)
	err := chromedp.Do(nav, enable, chromedp.EmulateViewport(int64(width), int64(height)), chromedp.Navigate(url))
	stop()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("browser: open %s: %w", url, err)
	}
	if ready != "" {
		if err := t.Wait(ready, timeout); err != nil {
			cancel()
			return nil, err
		}
	}
	return t, nil
}

func (t *Tab) record(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.errs = append(t.errs, s)
}

// Errors returns what the page reported as errors so far.
func (t *Tab) Errors() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.errs...)
}

// Close closes the tab.
func (t *Tab) Close() { t.cancel() }

// Wait waits until the script expression cond is true.
func (t *Tab) Wait(cond string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := Eval[bool](t, "Boolean("+cond+")")
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("browser: %s not true after %v (errors: %v)", cond, timeout, t.Errors())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// actionTimeout bounds each action on a tab (a stalled browser fails the
// test instead of hanging it).
const actionTimeout = time.Minute

// Eval evaluates a script expression in the tab and decodes its value;
// a promise is awaited.
func Eval[T any](t *Tab, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(t.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return v, fmt.Errorf("browser: %s: %w", expr, err)
	}
	return v, nil
}

// Click clicks the first element the CSS selector matches.
func (t *Tab) Click(sel string) error {
	ctx, cancel := context.WithTimeout(t.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		return fmt.Errorf("browser: click %s: %w", sel, err)
	}
	return nil
}

// Hover moves the mouse over the first element the CSS selector matches.
func (t *Tab) Hover(sel string) error {
	box, err := Eval[[]float64](t, `(function(){var e=document.querySelector(`+jsString(sel)+`);e.scrollIntoView({block:"center",inline:"nearest"});var r=e.getBoundingClientRect();return [r.left+Math.min(r.width/2,200),r.top+r.height/2];})()`)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(t.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0], box[1])); err != nil {
		return fmt.Errorf("browser: hover %s: %w", sel, err)
	}
	return nil
}

// Screenshot returns a PNG of the first element the CSS selector matches,
// or of the whole page when sel is empty.
func (t *Tab) Screenshot(sel string) ([]byte, error) {
	var a chromedp.Action[[]byte]
	if sel == "" {
		a = chromedp.FullScreenshot(100)
	} else {
		a = chromedp.Screenshot(chromedp.CSS(sel))
	}
	ctx, cancel := context.WithTimeout(t.ctx, actionTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("browser: screenshot: %w", err)
	}
	return png, nil
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
