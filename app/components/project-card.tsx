import { ExternalLink } from "~/components/external-link";
import type { Project, SiteContent } from "~/content/site";
import { fillIn } from "~/components/fill-in";
import { statusStyle } from "~/components/project-status";

export function ProjectCard({ project, copy }: { project: Project; copy: SiteContent["showcaseCopy"] }) {
  const status = statusStyle(project.status);
  return (
    <article className="group relative flex flex-col rounded-2xl border border-edge bg-surface p-6 shadow-sm transition hover:-translate-y-0.5 hover:shadow-md">
      <div className="flex items-start justify-between gap-3">
        <span className="text-4xl" aria-hidden="true">
          {project.logo}
        </span>
        <span
          className={`inline-flex items-center gap-1 rounded-full border px-2.5 py-0.5 text-xs font-semibold ${status.className}`}
        >
          <span aria-hidden="true">{status.icon}</span>
          <span>{status.label}</span>
        </span>
      </div>
      <h3 className="mt-4 text-lg font-bold text-ink">{project.title}</h3>
      <p className="mt-2 flex-1 text-sm text-ink-soft">{project.description}</p>
      <ul className="mt-4 flex flex-wrap gap-1.5" aria-label={fillIn(copy.techStack, { project: project.title })}>
        {project.techStack.map((tech) => (
          <li key={tech} className="rounded-md bg-surface-muted px-2 py-0.5 text-xs font-medium text-ink-soft">
            {tech}
          </li>
        ))}
      </ul>
      <dl className="mt-4 flex items-center justify-between gap-3 border-t border-edge-faint pt-4 text-sm">
        <div className="flex gap-1">
          <dt className="text-ink-muted">{copy.launch}</dt>
          <dd className="font-medium text-ink">{project.launchDate}</dd>
        </div>
        {project.revenue ? (
          <div className="flex gap-1">
            <dt className="sr-only">{copy.revenue}</dt>
            <dd className="font-semibold text-positive">
              {project.revenue}
              {copy.perMonth}
            </dd>
          </div>
        ) : null}
      </dl>
      {project.url ? (
        // Hidden until hover or keyboard focus on devices that can hover; always shown on touch screens.
        <ExternalLink
          href={project.url}
          className="project-link absolute right-4 top-16 inline-flex items-center gap-1 rounded-full bg-accent px-3 py-1 text-xs font-semibold text-white shadow transition-opacity"
        >
          {copy.visit}
          <span className="sr-only"> {project.title}</span>
          <span aria-hidden="true">↗</span>
        </ExternalLink>
      ) : null}
    </article>
  );
}
