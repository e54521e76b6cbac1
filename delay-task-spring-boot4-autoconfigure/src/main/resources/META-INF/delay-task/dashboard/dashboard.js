/*
 * The delay-task dashboard. Everything it shows and does goes through the delaytasks Actuator endpoint, over HTTP
 * with JSON bodies, so Actuator's exposure and access and the application's security apply to it as to any client.
 * Plain JavaScript without a build step; the DOM is built with textContent only, never from HTML strings of data.
 */
(function () {
    'use strict';

    const PAGE_SIZE = 20;
    const REFRESH_MILLIS = 5000;
    const SVG = 'http://www.w3.org/2000/svg';

    const endpoint = meta('delay-task-endpoint');
    const writable = meta('delay-task-writable') === 'true';
    const problem = meta('delay-task-problem');

    let deadPage = 0;
    let loading = false;

    function meta(name) {
        const tag = document.querySelector('meta[name="' + name + '"]');
        return tag ? tag.content : '';
    }

    function $(id) {
        return document.getElementById(id);
    }

    /** An element with attributes and children; strings become text nodes. */
    function el(tag, attributes, ...children) {
        const element = document.createElement(tag);
        Object.entries(attributes || {}).forEach(([name, value]) => {
            if (value === false || value === null || value === undefined) {
                return;
            }
            if (name.startsWith('on')) {
                element.addEventListener(name.substring(2), value);
            }
            else {
                element.setAttribute(name, value === true ? '' : value);
            }
        });
        children.flat().forEach((child) => {
            if (child !== null && child !== undefined) {
                element.append(child instanceof Node ? child : document.createTextNode(String(child)));
            }
        });
        return element;
    }

    function svg(tag, attributes, text) {
        const element = document.createElementNS(SVG, tag);
        Object.entries(attributes).forEach(([name, value]) => element.setAttribute(name, value));
        if (text !== undefined) {
            element.textContent = text;
        }
        return element;
    }

    /** Spring Security's cookie CSRF repository: its XSRF-TOKEN cookie goes back as the X-XSRF-TOKEN header. */
    function csrfHeaders() {
        const match = document.cookie.match(/(?:^|;\s*)XSRF-TOKEN=([^;]*)/);
        return match ? { 'X-XSRF-TOKEN': decodeURIComponent(match[1]) } : {};
    }

    /**
     * The JSON with every integer of more than 15 digits in quotes: task ids are 64-bit and would lose their last
     * digits as JavaScript numbers, so a button would act on another task. Numbers inside strings stay as they are.
     */
    function quoteLongNumbers(json) {
        let out = '';
        let inString = false;
        let i = 0;
        while (i < json.length) {
            const c = json[i];
            if (inString) {
                out += c;
                if (c === '\\') {
                    out += json[i + 1];
                    i += 2;
                    continue;
                }
                inString = c !== '"';
                i++;
                continue;
            }
            if (c === '"') {
                inString = true;
                out += c;
                i++;
                continue;
            }
            const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(json.substring(i, i + 64));
            if (number) {
                const integer = number[1] === undefined && number[2] === undefined;
                out += (integer && number[0].replace('-', '').length > 15) ? '"' + number[0] + '"' : number[0];
                i += number[0].length;
                continue;
            }
            out += c;
            i++;
        }
        return out;
    }

    async function call(method, path, body) {
        const headers = { Accept: 'application/json' };
        const init = { method: method, headers: headers, credentials: 'same-origin' };
        if (body !== undefined) {
            headers['Content-Type'] = 'application/json';
            Object.assign(headers, csrfHeaders());
            init.body = JSON.stringify(body);
        }
        const response = await fetch(endpoint + path, init);
        const text = await response.text();
        let data = null;
        try {
            data = text ? JSON.parse(quoteLongNumbers(text)) : null;
        }
        catch (ignored) {
            // an error page of the application's own, not the endpoint's JSON
        }
        return { status: response.status, ok: response.ok, data: data };
    }

    function refusal(response) {
        if (response.status === 401 || response.status === 403) {
            return 'the application refused the request (HTTP ' + response.status + '): sign in with a role that '
                + 'may use the delaytasks endpoint';
        }
        if (response.data && response.data.reason) {
            return response.data.reason;
        }
        if (response.status === 404) {
            return 'not found (HTTP 404)';
        }
        return 'HTTP ' + response.status;
    }

    function say(text, isError) {
        const banner = $('message');
        banner.textContent = text;
        banner.className = isError ? 'banner error' : 'banner';
        banner.hidden = false;
    }

    function formatTime(iso) {
        if (!iso) {
            return '';
        }
        const date = new Date(iso);
        const pad = (n) => String(n).padStart(2, '0');
        return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + ' '
            + pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds());
    }

    /** An ISO-8601 duration as Actuator writes it (PT1M2.5S) in short words. */
    function formatDuration(iso) {
        const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(iso || '');
        if (!match) {
            return iso || '';
        }
        const seconds = (Number(match[1] || 0) * 3600) + (Number(match[2] || 0) * 60) + Number(match[3] || 0);
        return formatMillis(seconds * 1000);
    }

    function formatMillis(millis) {
        if (millis < 1000) {
            return Math.round(millis) + ' ms';
        }
        if (millis < 60000) {
            return (millis / 1000).toFixed(1) + ' s';
        }
        if (millis < 3600000) {
            return Math.floor(millis / 60000) + ' min ' + Math.round((millis % 60000) / 1000) + ' s';
        }
        return (millis / 3600000).toFixed(1) + ' h';
    }

    function button(label, className, action, title) {
        return el('button', {
            type: 'button',
            class: className,
            disabled: !writable,
            title: writable ? title : 'The endpoint is read-only',
            onclick: action
        }, label);
    }

    // ---- queues ---------------------------------------------------------------------------------------------------

    /** "'bean' method com.example.Orders.timeout" as "Orders.timeout"; the whole of it is the cell's title. */
    function shortListener(listener) {
        if (!listener) {
            return 'none';
        }
        const method = listener.substring(listener.lastIndexOf(' ') + 1).split('.');
        return method.slice(-2).join('.');
    }

    /** A task type as people know it: its listener's name beside the number, which stays the key. */
    function typeLabel(type, name) {
        return name ? name + ' (' + type + ')' : String(type);
    }

    function renderQueues(overview) {
        const rows = overview.queues.map((queue) => el('tr', { 'data-queue': queue.taskType + '/' + queue.priority },
            el('td', {}, typeLabel(queue.taskType, queue.name)),
            el('td', {}, queue.priority),
            el('td', { class: queue.listener ? '' : 'muted', title: queue.listener || '' },
                shortListener(queue.listener)),
            el('td', {}, el('span', { class: queue.paused ? 'state paused' : 'state' },
                queue.paused ? 'paused' : 'running')),
            el('td', { class: 'number' }, queue.future),
            el('td', { class: 'number' }, queue.ready),
            el('td', { class: 'number' }, queue.inflight),
            el('td', { class: 'number' }, queue.pending),
            el('td', { class: queue.dead > 0 ? 'number dead-count' : 'number' }, queue.dead),
            el('td', { class: 'number' }, formatDuration(queue.oldestReadyAge)),
            el('td', {}, formatTime(queue.nextDueTime)),
            el('td', { class: 'actions' },
                queue.paused
                    ? button('Resume', 'resume', () => changeQueue(queue, 'resume'),
                        'Let every instance claim its tasks')
                    : button('Pause', 'pause', () => changeQueue(queue, 'pause'), 'Stop claims on every instance'),
                ' ',
                button('Requeue dead', 'requeue-dead danger', () => changeQueue(queue, 'requeue-dead'),
                    'Run every dead task of the queue again, now'))));
        const body = $('queues').tBodies[0];
        body.replaceChildren(...(rows.length ? rows
            : [el('tr', {}, el('td', { colspan: 12, class: 'empty' }, 'No queue is known to the cluster yet.'))]));
        const reload = overview.lastReload;
        $('last-reload').textContent = reload
            ? 'Last full reload from the database on this instance: ' + formatTime(reload.startedAt) : '';
    }

    /** What each change of a queue asks before it is made: every one reaches every instance at once. */
    const QUEUE_QUESTIONS = {
        pause: (name) => 'Pause ' + name + '? No instance will start its tasks until it is resumed.',
        resume: (name) => 'Resume ' + name + '? Every instance starts its due tasks at once.',
        'requeue-dead': (name, queue) => 'Run the ' + queue.dead + ' dead tasks of ' + name + ' again, now?'
    };

    async function changeQueue(queue, action) {
        const name = 'queue ' + typeLabel(queue.taskType, queue.name) + '/' + queue.priority;
        if (!window.confirm(QUEUE_QUESTIONS[action](name, queue))) {
            return;
        }
        const response = await call('POST', '/queues/' + queue.taskType + '/' + queue.priority, { action: action });
        if (!response.ok) {
            say(name + ': ' + refusal(response), true);
        }
        else if (action === 'requeue-dead') {
            say(name + ': ' + response.data.requeued + ' dead tasks requeued');
        }
        else {
            say(name + (response.data.paused ? ' is paused' : ' is running')
                + (response.data.status === 'UNCHANGED' ? ' already' : ''));
        }
        refresh();
    }

    // ---- schedules ------------------------------------------------------------------------------------------------

    /** When a schedule runs: its cron expression and zone, or its interval. */
    function scheduleWhen(schedule) {
        return schedule.cron ? schedule.cron + ' (' + schedule.zone + ')'
            : 'every ' + formatDuration(schedule.interval);
    }

    /** The schedules, or the section hidden where they cannot be read (a schema without their table). */
    function renderSchedules(schedules) {
        $('schedules-section').hidden = !schedules;
        if (!schedules) {
            return;
        }
        const rows = schedules.map((schedule) => el('tr', { 'data-schedule': schedule.name },
            el('td', {}, schedule.name),
            el('td', {}, scheduleWhen(schedule)),
            el('td', {}, typeLabel(schedule.taskType, schedule.taskName)),
            el('td', {}, schedule.priority),
            el('td', {}, schedule.catchUp.toLowerCase()),
            el('td', {}, schedule.paused ? '' : formatTime(schedule.nextTime)),
            el('td', {}, el('span', { class: schedule.paused ? 'state paused' : 'state' },
                schedule.paused ? 'paused' : 'running')),
            el('td', {}, schedule.declaredInCode ? 'code' : 'run time'),
            el('td', { class: 'actions' },
                schedule.paused
                    ? button('Resume', 'resume', () => changeSchedule(schedule, 'resume'),
                        'Add its tasks again, from its next time after now')
                    : button('Pause', 'pause', () => changeSchedule(schedule, 'pause'),
                        'Add no more of its tasks, and cancel those still to come'),
                ' ',
                button('Edit', 'edit', () => editSchedule(schedule), 'Put it in the form below to change it'),
                ' ',
                button('Remove', 'remove danger', () => changeSchedule(schedule, 'remove'),
                    'Remove it, and cancel its tasks still to come'))));
        $('schedules').tBodies[0].replaceChildren(...(rows.length ? rows
            : [el('tr', {}, el('td', { colspan: 9, class: 'empty' }, 'No schedule is stored.'))]));
    }

    /** What each change of a schedule asks before it is made: every one reaches every instance at once. */
    const SCHEDULE_QUESTIONS = {
        pause: (name) => 'Pause schedule ' + name + '? Its tasks still to come are cancelled.',
        resume: (name) => 'Resume schedule ' + name + '? It goes on from its next time after now.',
        remove: (name, schedule) => 'Remove schedule ' + name + '?' + (schedule.declaredInCode
            ? ' It is declared in code: the next instance that starts stores it again.' : '')
    };

    async function changeSchedule(schedule, action) {
        if (!window.confirm(SCHEDULE_QUESTIONS[action](schedule.name, schedule))) {
            return;
        }
        const response = await call('POST', '/schedules/' + encodeURIComponent(schedule.name), { action: action });
        const name = 'schedule ' + schedule.name;
        if (!response.ok) {
            say(name + ': ' + refusal(response), true);
        }
        else if (action === 'remove') {
            say(name + ' is removed');
        }
        else {
            say(name + (response.data.schedule && response.data.schedule.paused ? ' is paused' : ' is running')
                + (response.data.status === 'UNCHANGED' ? ' already' : ''));
        }
        refresh();
    }

    /** Puts a schedule in the form, to be changed and saved again; its parameters stay unless new ones are typed. */
    function editSchedule(schedule) {
        $('schedule-name').value = schedule.name;
        $('schedule-kind').value = schedule.cron ? 'cron' : 'interval';
        $('schedule-when').value = schedule.cron || schedule.interval;
        $('schedule-zone').value = schedule.zone || '';
        $('schedule-type').value = schedule.taskType;
        $('schedule-priority').value = schedule.priority;
        $('schedule-catch-up').value = schedule.catchUp;
        $('schedule-parameters').value = '';
        $('schedule-name').focus();
    }

    async function saveSchedule(event) {
        event.preventDefault();
        const name = $('schedule-name').value.trim();
        const body = {
            name: name,
            taskType: Number($('schedule-type').value),
            priority: Number($('schedule-priority').value || 0),
            catchUp: $('schedule-catch-up').value
        };
        const when = $('schedule-when').value.trim();
        if ($('schedule-kind').value === 'cron') {
            body.cron = when;
            body.zone = $('schedule-zone').value.trim() || Intl.DateTimeFormat().resolvedOptions().timeZone;
        }
        else {
            body.interval = when;
        }
        const parameters = $('schedule-parameters').value;
        if (parameters) {
            body.parameters = parameters;
        }
        const described = body.cron ? body.cron + ' in ' + body.zone : 'every ' + body.interval;
        if (!window.confirm('Save schedule ' + name + ' (' + described + ')? Every instance follows it at once; the tasks '
            + 'of its old times still to come are cancelled.')) {
            return;
        }
        const response = await call('POST', '', body);
        if (!response.ok) {
            say('schedule ' + name + ': ' + refusal(response), true);
        }
        else {
            say('schedule ' + name + (response.data && response.data.status === 'UNCHANGED'
                ? ' is as saved already' : ' is saved'));
        }
        refresh();
    }

    // ---- chart ----------------------------------------------------------------------------------------------------

    /** The smallest of 1, 2, 5 times a power of ten at least the value, so that the axis reads well. */
    function niceCeiling(value) {
        if (value <= 0) {
            return 1;
        }
        const power = Math.pow(10, Math.floor(Math.log10(value)));
        return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value);
    }

    function renderChart(activity) {
        const intervals = activity.intervals;
        // drawn at the width it is shown at, so that its text keeps its size
        const width = Math.max($('chart').clientWidth, 480);
        const height = 220;
        const left = 48;
        const right = 64;
        const top = 26;
        const bottom = 24;
        const plotWidth = width - left - right;
        const plotHeight = height - top - bottom;
        const runs = niceCeiling(Math.max(...intervals.map((i) => i.executed + i.retried + i.dead)));
        const lateness = niceCeiling(Math.max(...intervals.map((i) => i.averageLatenessMillis)));
        const slot = plotWidth / intervals.length;
        const chart = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, role: 'img',
            'aria-label': 'Runs and lateness on this instance over the last ten minutes' });
        chart.append(svg('line', { class: 'axis', x1: left, y1: top + plotHeight, x2: left + plotWidth,
            y2: top + plotHeight }));
        [0.5, 1].forEach((fraction) => {
            const y = top + plotHeight * (1 - fraction);
            chart.append(svg('line', { class: 'axis', x1: left, y1: y, x2: left + plotWidth, y2: y,
                'stroke-dasharray': '3 3' }));
            chart.append(svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end' }, String(runs * fraction)));
            chart.append(svg('text', { x: left + plotWidth + 6, y: y + 4 }, formatMillis(lateness * fraction)));
        });
        chart.append(svg('text', { x: left - 6, y: top + plotHeight + 4, 'text-anchor': 'end' }, '0'));
        const seconds = intervals.length * 10;
        [[0, '-' + Math.round(seconds / 60) + ' min'], [0.5, '-' + Math.round(seconds / 120) + ' min'], [1, 'now']]
            .forEach(([fraction, label]) => chart.append(svg('text', { x: left + plotWidth * fraction,
                y: height - 6, 'text-anchor': fraction === 0 ? 'start' : (fraction === 1 ? 'end' : 'middle') },
            label)));
        intervals.forEach((interval, index) => {
            let y = top + plotHeight;
            [['executed', interval.executed], ['retried', interval.retried], ['dead', interval.dead]]
                .forEach(([outcome, count]) => {
                    if (count > 0) {
                        const barHeight = plotHeight * count / runs;
                        y -= barHeight;
                        const bar = svg('rect', { class: outcome, x: left + index * slot + 1, y: y,
                            width: Math.max(slot - 2, 1), height: barHeight });
                        bar.append(svg('title', {}, formatTime(interval.start) + ': ' + count + ' ' + outcome));
                        chart.append(bar);
                    }
                });
        });
        const points = intervals.map((interval, index) => (interval.starts > 0)
            ? (left + (index + 0.5) * slot) + ',' + (top + plotHeight * (1 - interval.averageLatenessMillis / lateness))
            : null);
        // one line per run of intervals with starts: an interval without starts has no lateness, not zero
        let run = [];
        points.concat([null]).forEach((point) => {
            if (point) {
                run.push(point);
            }
            else if (run.length) {
                chart.append(run.length > 1 ? svg('polyline', { class: 'lateness', points: run.join(' ') })
                    : svg('circle', { class: 'lateness', cx: run[0].split(',')[0], cy: run[0].split(',')[1], r: 2 }));
                run = [];
            }
        });
        const legend = svg('g', { class: 'legend' });
        [['executed', 'executed'], ['retried', 'retried'], ['dead', 'dead']].forEach(([outcome, label], index) => {
            legend.append(svg('rect', { class: outcome, x: left + index * 90, y: 6, width: 10, height: 10 }));
            legend.append(svg('text', { x: left + index * 90 + 14, y: 15 }, label));
        });
        legend.append(svg('line', { class: 'lateness', x1: left + 270, y1: 11, x2: left + 290, y2: 11 }));
        legend.append(svg('text', { x: left + 296, y: 15 }, 'average lateness of handler starts (right axis)'));
        legend.append(svg('text', { x: left + plotWidth, y: 15, 'text-anchor': 'end' }, 'runs per 10 s'));
        chart.append(legend);
        $('chart').replaceChildren(chart);
    }

    // ---- tasks ----------------------------------------------------------------------------------------------------

    function taskActions(task, after) {
        const actions = [];
        if (task.status === 'DEAD') {
            actions.push(button('Requeue', 'requeue', () => changeTask(task, 'requeue', after),
                'Run it again, now, with its attempts from zero'));
            actions.push(' ');
            actions.push(button('Cancel', 'cancel danger', () => changeTask(task, 'cancel', after),
                'Discard it: it will not run again, and leaves the dead tasks'));
        }
        if (task.status === 'SCHEDULED') {
            actions.push(button('Run now', 'run-now', () => changeTask(task, 'run-now', after), 'Make it due now'));
            actions.push(' ');
            actions.push(button('Cancel', 'cancel danger', () => changeTask(task, 'cancel', after),
                'Cancel it; it will not run'));
        }
        return actions;
    }

    /** The first line of a stack trace, and the rest of it on demand. */
    function errorText(error) {
        if (!error) {
            return '';
        }
        const lines = error.split('\n');
        if (lines.length === 1 || !lines[1].trim()) {
            return error;
        }
        // the exception's simple name: the package is in the trace below
        const first = lines[0].replace(/^([\w$]+\.)+(?=[\w$]+(:|$))/, '');
        return el('details', {}, el('summary', { title: lines[0] }, first), lines.join('\n'));
    }

    function taskRow(task, withStatus, after) {
        return el('tr', { 'data-task-id': task.taskId },
            el('td', { class: 'number' }, task.taskId),
            el('td', {}, typeLabel(task.taskType, task.taskName)),
            el('td', {}, task.priority),
            el('td', { class: task.bizKey ? '' : 'muted' }, task.bizKey || '-'),
            withStatus ? el('td', {}, task.status) : null,
            el('td', { class: 'number' }, task.attempts),
            el('td', {}, formatTime(task.executeTime)),
            el('td', { class: 'error' }, errorText(task.lastError)),
            el('td', { class: 'actions' }, taskActions(task, after)));
    }

    /** What each change of a task asks before it is made. */
    const TASK_QUESTIONS = {
        requeue: (id) => 'Run task ' + id + ' again, now, with its attempts from zero?',
        cancel: (id) => 'Cancel task ' + id + '? It will not run.',
        'run-now': (id) => 'Run task ' + id + ' now, ahead of its time?'
    };

    async function changeTask(task, action, after) {
        if (!window.confirm(TASK_QUESTIONS[action](task.taskId))) {
            return;
        }
        const response = await call('POST', '/tasks/' + task.taskId, { action: action });
        if (response.ok) {
            say('Task ' + task.taskId + ': ' + { requeue: 'requeued, due now', cancel: 'cancelled',
                'run-now': 'due now' }[action]);
        }
        else {
            say('Task ' + task.taskId + ': ' + refusal(response), true);
        }
        if (after) {
            after();
        }
        refresh();
    }

    function renderDead(dead) {
        const rows = dead.tasks.map((task) => taskRow(task, false));
        $('dead').tBodies[0].replaceChildren(...(rows.length ? rows
            : [el('tr', {}, el('td', { colspan: 8, class: 'empty' },
                deadPage === 0 ? 'No dead task.' : 'No dead task on this page.'))]));
        $('dead-page').textContent = 'page ' + (deadPage + 1);
        $('dead-previous').disabled = deadPage === 0;
        $('dead-next').disabled = dead.tasks.length < PAGE_SIZE;
    }

    async function search(query) {
        const result = $('search-result');
        let response = null;
        if (/^\d+$/.test(query)) {
            response = await call('GET', '/tasks/' + query);
        }
        // a business key may be all digits too, even too many for a task id (400)
        if (response === null || response.status === 404 || response.status === 400) {
            response = await call('GET', '/keys/' + encodeURIComponent(query));
        }
        if (!response.ok) {
            result.replaceChildren(el('p', { class: response.status === 404 ? 'empty' : 'banner error' },
                response.status === 404 ? 'No task has the id ' + query + ', and no live task the business key '
                    + query + '.' : refusal(response)));
            return;
        }
        result.replaceChildren(el('table', {},
            el('thead', {}, el('tr', {}, ['Task', 'Type', 'Priority', 'Business key', 'Status', 'Attempts', 'Due',
                'Last error', ''].map((heading) => el('th', {}, heading)))),
            el('tbody', {}, taskRow(response.data, true, () => search(query)))));
    }

    // ---- loading --------------------------------------------------------------------------------------------------

    async function refresh() {
        if (loading) {
            return;
        }
        loading = true;
        try {
            const [overview, dead] = await Promise.all([call('GET', ''),
                call('GET', '/dead?page=' + deadPage + '&size=' + PAGE_SIZE)]);
            if (!overview.ok) {
                say('The delaytasks endpoint did not answer: ' + refusal(overview), true);
                return;
            }
            renderQueues(overview.data);
            renderSchedules(overview.data.schedules);
            renderChart(overview.data.activity);
            if (dead.ok) {
                renderDead(dead.data);
            }
            document.body.setAttribute('data-loaded', new Date().toISOString());
        }
        catch (error) {
            say('The delaytasks endpoint could not be reached: ' + error.message, true);
        }
        finally {
            loading = false;
        }
    }

    function start() {
        if (problem || !endpoint) {
            $('problem').textContent = 'This page cannot show or change tasks: '
                + (problem || 'it was given no endpoint');
            $('problem').hidden = false;
            document.querySelectorAll('main button, header button, main input').forEach((element) => {
                element.disabled = true;
            });
            return;
        }
        $('endpoint').textContent = endpoint;
        $('read-only').hidden = writable;
        $('refresh').addEventListener('click', refresh);
        $('dead-previous').addEventListener('click', () => {
            deadPage = Math.max(0, deadPage - 1);
            refresh();
        });
        $('dead-next').addEventListener('click', () => {
            deadPage += 1;
            refresh();
        });
        $('schedule-form').addEventListener('submit', saveSchedule);
        $('schedule-save').disabled = !writable;
        $('search').addEventListener('submit', (event) => {
            event.preventDefault();
            const query = $('search-input').value.trim();
            if (query) {
                search(query);
            }
        });
        window.setInterval(() => {
            if ($('auto-refresh').checked) {
                refresh();
            }
        }, REFRESH_MILLIS);
        refresh();
    }

    start();
}());
