import { Box, Typography } from '@mui/material';
import { useState } from 'react';
import { axisTicks } from './ticks';

/** Spec 4 colours of the figures (delivered green, failed red, pending amber), shared by the legend and the bars. */
export const SERIES_COLOURS = { delivered: '#16a34a', failed: '#dc2626', pending: '#f59e0b', cost: '#4f46e5' } as const;

export interface StackedPoint {
  label: string;
  /** the full label for the tooltip */
  title: string;
  values: Record<string, number>;
}


const W = 720;
const H = 240;
const PAD = { left: 56, right: 12, top: 12, bottom: 36 };

/**
 * Stacked bars over time, hand-drawn in SVG (no chart library is installed): a y axis with round ticks formatted by
 * `format` (K, M, B), one bar per point stacked in `keys` order, x labels thinned to fit, a tooltip on hover. The
 * ticks are whole numbers (counts) unless `fractional` (money).
 */
export const StackedBars = ({ points, keys, colours, format, emptyText, testId, fractional }: { points: StackedPoint[]; keys: string[]; colours: Record<string, string>; format: (n: number) => string; emptyText: string; testId?: string; fractional?: boolean }) => {
  const [hover, setHover] = useState<number | null>(null);
  if (points.length === 0) {
    return (
      <Box sx={{ height: H, display: 'grid', placeItems: 'center', color: 'text.secondary', border: 1, borderColor: 'divider', borderStyle: 'dashed', borderRadius: 2 }} data-testid={testId ? `${testId}-empty` : undefined}>
        <Typography variant="body2">{emptyText}</Typography>
      </Box>
    );
  }
  const totals = points.map((p) => keys.reduce((n, k) => n + (p.values[k] ?? 0), 0));
  const axis = axisTicks(Math.max(...totals), !fractional);
  const top = axis[axis.length - 1];
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const slot = innerW / points.length;
  const barW = Math.max(2, Math.min(36, slot * 0.7));
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH;
  const every = Math.ceil(points.length / 12);
  return (
    <Box sx={{ position: 'relative' }} data-testid={testId}>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" style={{ display: 'block' }}>
        {axis.map((t) => (
          <g key={t}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} stroke="#e5e7eb" />
            <text x={PAD.left - 6} y={y(t) + 4} textAnchor="end" fontSize="11" fill="#6b7280">
              {format(t)}
            </text>
          </g>
        ))}
        {points.map((p, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          let acc = 0;
          return (
            <g key={p.title} onMouseEnter={() => setHover(i)} onMouseLeave={() => setHover(null)} data-testid="chart-bar" data-total={totals[i]}>
              <rect x={PAD.left + i * slot} y={PAD.top} width={slot} height={innerH} fill={hover === i ? '#f3f4f6' : 'transparent'} />
              {keys.map((k) => {
                const v = p.values[k] ?? 0;
                if (v <= 0) return null;
                const y0 = y(acc);
                acc += v;
                return <rect key={k} x={x} y={y(acc)} width={barW} height={Math.max(0.5, y0 - y(acc))} fill={colours[k]} rx={1.5} />;
              })}
              {i % every === 0 && (
                <text x={PAD.left + i * slot + slot / 2} y={H - PAD.bottom + 16} textAnchor="middle" fontSize="11" fill="#6b7280">
                  {p.label}
                </text>
              )}
            </g>
          );
        })}
        <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} stroke="#9ca3af" />
      </svg>
      {hover !== null && (
        <Box sx={{ position: 'absolute', top: 4, right: 8, bgcolor: 'background.paper', border: 1, borderColor: 'divider', borderRadius: 1, px: 1, py: 0.5, fontSize: 12, pointerEvents: 'none' }} data-testid="chart-tooltip">
          <strong>{points[hover].title}</strong>
          {keys.map((k) => (
            <Box key={k} sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
              <Box sx={{ width: 8, height: 8, borderRadius: '2px', bgcolor: colours[k] }} />
              {format(points[hover].values[k] ?? 0)}
            </Box>
          ))}
        </Box>
      )}
    </Box>
  );
};

/** Horizontal bars with their label and value (top destinations, streams), longest first; an empty state without rows. */
export const HorizontalBars = ({ rows, colour, emptyText, testId }: { rows: Array<{ key: string; label: string; value: number; text: string; sub?: string }>; colour: string; emptyText: string; testId?: string }) => {
  if (rows.length === 0) {
    return (
      <Box sx={{ py: 4, textAlign: 'center', color: 'text.secondary' }} data-testid={testId ? `${testId}-empty` : undefined}>
        <Typography variant="body2">{emptyText}</Typography>
      </Box>
    );
  }
  const max = Math.max(...rows.map((r) => r.value), 1);
  return (
    <Box data-testid={testId}>
      {rows.map((r) => (
        <Box key={r.key} sx={{ mb: 1.25 }} data-testid={testId ? `${testId}-row` : undefined} data-key={r.key}>
          <Box sx={{ display: 'flex', justifyContent: 'space-between', fontSize: 13, mb: 0.25 }}>
            <span>{r.label}</span>
            <span>
              <strong data-testid={testId ? `${testId}-value` : undefined}>{r.text}</strong>
              {r.sub && <Box component="span" sx={{ color: 'text.secondary', ml: 1 }}>{r.sub}</Box>}
            </span>
          </Box>
          <svg width="100%" height="8" viewBox="0 0 100 8" preserveAspectRatio="none" style={{ display: 'block' }}>
            <rect x="0" y="0" width="100" height="8" rx="4" fill="#f3f4f6" />
            <rect x="0" y="0" width={Math.max(1, (r.value / max) * 100)} height="8" rx="4" fill={colour} />
          </svg>
        </Box>
      ))}
    </Box>
  );
};
